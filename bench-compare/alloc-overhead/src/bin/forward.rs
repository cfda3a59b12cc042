//! A global allocator that only forwards to the system's: what any wrapper costs at least.

use std::alloc::{GlobalAlloc, Layout, System};

struct Forward;

unsafe impl GlobalAlloc for Forward {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        unsafe { System.alloc(layout) }
    }
    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: Forward = Forward;

fn main() {
    alloc_overhead::measure("forward");
}
