//! The tiny batched routine of issue 17 as a criterion user writes it.
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};

fn benches(c: &mut Criterion) {
    c.bench_function("push_one", |b| {
        b.iter_batched(
            || Vec::<u64>::with_capacity(8),
            |mut v| {
                v.push(1);
                v
            },
            BatchSize::SmallInput,
        )
    });
}

criterion_group!(group, benches);
criterion_main!(group);
