#[global_allocator]
static ALLOC: perfbench::CountingAlloc = perfbench::CountingAlloc::system();

fn main() {
    perfbench::counters::alloc::set_counting(true);
    alloc_overhead::measure("perfbench-on");
    let counted = perfbench::counters::alloc::snapshot().allocs;
    assert!(counted >= 21_000_000, "the loop's allocations were counted: {counted}");
}
