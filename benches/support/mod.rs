//! Helpers shared by the root package's benchmark suites (not a benchmark target itself).

/// Recursive Fibonacci: pure computation, about 20k calls for `n = 20`.
pub fn fib(n: u64) -> u64 {
    if n < 2 {
        n
    } else {
        fib(n - 1) + fib(n - 2)
    }
}

/// `0..n` in a deterministic shuffled order (xorshift), so every sample sorts the same input.
pub fn shuffled(n: u32) -> Vec<u32> {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut v: Vec<u32> = (0..n).collect();
    for i in (1..v.len()).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v.swap(i, (x % (i as u64 + 1)) as usize);
    }
    v
}
