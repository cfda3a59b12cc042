#[global_allocator]
static ALLOC: perfbench::CountingAlloc = perfbench::CountingAlloc::system();

fn main() {
    alloc_overhead::measure("perfbench-off");
}
