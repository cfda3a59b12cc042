//! Samples with one fixed-size field each (`PERF_SAMPLE_IP`, `TID`, `TIME`, ...), and
//! the weight struct's halves in either byte order.

use super::*;

type Writer = fn(&mut Bytes);

#[test]
fn every_fixed_size_field_alone() {
    let cases: [(u32, Writer, Sample); 16] = [
        (
            raw::PERF_SAMPLE_IDENTIFIER,
            |b| {
                b.u64(7);
            },
            Sample {
                identifier: Some(7),
                ..base()
            },
        ),
        (
            raw::PERF_SAMPLE_IP,
            |b| {
                b.u64(0x4010);
            },
            Sample {
                ip: Some(0x4010),
                ..base()
            },
        ),
        (
            raw::PERF_SAMPLE_TID,
            |b| {
                b.u32(11).u32(12);
            },
            Sample {
                pid: Some(11),
                tid: Some(12),
                ..base()
            },
        ),
        (
            raw::PERF_SAMPLE_TIME,
            |b| {
                b.u64(99);
            },
            Sample {
                time: Some(99),
                ..base()
            },
        ),
        (
            raw::PERF_SAMPLE_ADDR,
            |b| {
                b.u64(0xdead);
            },
            Sample {
                addr: Some(0xdead),
                ..base()
            },
        ),
        (
            raw::PERF_SAMPLE_ID,
            |b| {
                b.u64(5);
            },
            Sample {
                id: Some(5),
                ..base()
            },
        ),
        (
            raw::PERF_SAMPLE_STREAM_ID,
            |b| {
                b.u64(6);
            },
            Sample {
                stream_id: Some(6),
                ..base()
            },
        ),
        (
            raw::PERF_SAMPLE_CPU,
            |b| {
                b.u32(3).u32(0);
            },
            Sample {
                cpu: Some(3),
                ..base()
            },
        ),
        (
            raw::PERF_SAMPLE_PERIOD,
            |b| {
                b.u64(1000);
            },
            Sample {
                period: Some(1000),
                ..base()
            },
        ),
        (
            raw::PERF_SAMPLE_DATA_SRC,
            |b| {
                b.u64(0x42);
            },
            Sample {
                data_src: Some(0x42),
                ..base()
            },
        ),
        (
            raw::PERF_SAMPLE_TRANSACTION,
            |b| {
                b.u64(1 << 32 | 2);
            },
            Sample {
                transaction: Some(1 << 32 | 2),
                ..base()
            },
        ),
        (
            raw::PERF_SAMPLE_PHYS_ADDR,
            |b| {
                b.u64(0x9000);
            },
            Sample {
                phys_addr: Some(0x9000),
                ..base()
            },
        ),
        (
            raw::PERF_SAMPLE_CGROUP,
            |b| {
                b.u64(77);
            },
            Sample {
                cgroup: Some(77),
                ..base()
            },
        ),
        (
            raw::PERF_SAMPLE_DATA_PAGE_SIZE,
            |b| {
                b.u64(4096);
            },
            Sample {
                data_page_size: Some(4096),
                ..base()
            },
        ),
        (
            raw::PERF_SAMPLE_CODE_PAGE_SIZE,
            |b| {
                b.u64(2 << 20);
            },
            Sample {
                code_page_size: Some(2 << 20),
                ..base()
            },
        ),
        (
            raw::PERF_SAMPLE_WEIGHT,
            |b| {
                b.u64(0x0003_0002_0000_0001);
            },
            Sample {
                weight: Some(Weight::Full(0x0003_0002_0000_0001)),
                ..base()
            },
        ),
    ];
    for (flag, write, expected) in cases {
        check_sample(&format(flag), write, &expected);
    }
}

#[test]
fn weight_struct_splits_the_word_in_either_byte_order() {
    let expected = Sample {
        weight: Some(Weight::Struct {
            var1_dw: 1,
            var2_w: 2,
            var3_w: 3,
        }),
        ..base()
    };
    let f = format(raw::PERF_SAMPLE_WEIGHT_STRUCT);
    check_sample(
        &f,
        |b| {
            b.u64(0x0003_0002_0000_0001);
        },
        &expected,
    );
    // The big-endian struct lists var3_w, var2_w, var1_dw in memory order.
    let mut b = Bytes::sample(BIG);
    let bytes = b.u16(3).u16(2).u32(1).build();
    assert_eq!(decoded(&f, &bytes, BIG), expected);
}
