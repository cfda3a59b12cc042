//! The workloads of bench-compare/simulate.sh, shared by simsuite-perfbench and gungraun-suite
//! (whose src/lib.rs includes this file), so both tools measure the same machine code: the
//! measured functions here are `#[inline(never)]`: rustc would otherwise inline small leaf
//! functions such as `fnv1a` across crates, into code that differs between the two harnesses.
//! So each is one function of the library crate, the same machine code in both suites, and a
//! benchmark's count is that function's inclusive cost plus the benchmark's own glue.
//!
//! Inputs are made outside the measurement (perfbench: `iter_batched`/`iter_batched_ref`;
//! gungraun: `setup` and `args`) and are the same in every run.

/// fib(n), recursively.
#[inline(never)]
pub fn fib(n: u64) -> u64 {
    if n < 2 {
        n
    } else {
        fib(n - 1) + fib(n - 2)
    }
}

/// 0..n in a fixed order (a xorshift Fisher-Yates shuffle with a fixed seed).
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

/// Sorts `v` in place (pattern-defeating quicksort) and hands it back.
#[inline(never)]
pub fn sort(mut v: Vec<u32>) -> Vec<u32> {
    v.sort_unstable();
    v
}

/// `len` fixed pseudo-random bytes.
pub fn bytes(len: usize) -> Vec<u8> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 56) as u8
        })
        .collect()
}

/// 64-bit FNV-1a of `data`.
#[inline(never)]
pub fn fnv1a(data: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for &b in data {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// `data` through `std::hash::DefaultHasher::new()` (SipHash-1-3 with fixed keys).
#[inline(never)]
pub fn siphash(data: &[u8]) -> u64 {
    use std::hash::Hasher;
    let mut h = std::hash::DefaultHasher::new();
    h.write(data);
    h.finish()
}

/// A fixed CSV text: a header and 64 rows `id,name,qty,price` (1,306 bytes).
pub fn csv_text() -> String {
    let names = [
        "apple",
        "banana",
        "cherry",
        "date",
        "elderberry",
        "fig",
        "grape",
    ];
    let mut s = String::from("id,name,qty,price\n");
    for i in 0..64u32 {
        let name = names[i as usize % names.len()];
        let qty = (i * 37 + 11) % 1000;
        let cents = (i * 7919 + 123) % 100_000;
        s.push_str(&format!(
            "{i},{name},{qty},{}.{:02}\n",
            cents / 100,
            cents % 100
        ));
    }
    s
}

/// [`csv_text`] with a `'static` lifetime (leaked once per call: for setups that hand the
/// benchmark a borrowed text, so that nothing is dropped in either tool's bracket).
pub fn csv_static() -> &'static str {
    csv_text().leak()
}

/// What [`parse_csv`] finds: rows, total quantity, total price in cents, longest name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CsvSummary {
    pub rows: u32,
    pub qty: u64,
    pub cents: u64,
    pub longest_name: usize,
}

/// Parses the text of [`csv_text`] by hand (split on lines and commas, integers and
/// two-decimal prices parsed digit by digit); `None` on a malformed row.
#[inline(never)]
pub fn parse_csv(text: &str) -> Option<CsvSummary> {
    fn int(s: &str) -> Option<u64> {
        if s.is_empty() {
            return None;
        }
        s.bytes().try_fold(0u64, |acc, b| {
            b.is_ascii_digit().then(|| acc * 10 + u64::from(b - b'0'))
        })
    }
    let mut out = CsvSummary::default();
    let mut lines = text.lines();
    lines.next()?; // header
    for line in lines {
        let mut fields = line.split(',');
        let _id = int(fields.next()?)?;
        let name = fields.next()?;
        let qty = int(fields.next()?)?;
        let (units, cents) = fields.next()?.split_once('.')?;
        if fields.next().is_some() || cents.len() != 2 {
            return None;
        }
        out.rows += 1;
        out.qty += qty;
        out.cents += int(units)? * 100 + int(cents)?;
        out.longest_name = out.longest_name.max(name.len());
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workloads_do_what_they_say() {
        assert_eq!(fib(20), 6765);
        let v = shuffled(1000);
        assert_ne!(v, (0..1000).collect::<Vec<_>>());
        assert_eq!(sort(v), (0..1000).collect::<Vec<_>>());
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(bytes(4096).len(), 4096);
        assert_eq!(siphash(&bytes(4096)), siphash(&bytes(4096)));
        let s = parse_csv(&csv_text()).unwrap();
        assert_eq!(s.rows, 64);
        assert_eq!(s.longest_name, "elderberry".len());
        assert_eq!(parse_csv("h\n1,x,2,3.4\n"), None);
    }
}
