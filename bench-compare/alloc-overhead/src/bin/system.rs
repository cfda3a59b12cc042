fn main() {
    alloc_overhead::measure("system");
}
