//! A sample with every field at once, in either byte order; a sample read in the wrong byte
//! order, cut short, with bytes left over or with unknown `sample_type` bits.

use super::*;

fn full_sample() -> Sample<'static> {
    Sample {
        misc: MISC,
        identifier: Some(1),
        ip: Some(0x4010),
        pid: Some(100),
        tid: Some(101),
        time: Some(5_000),
        addr: Some(0xbeef),
        id: Some(1),
        stream_id: Some(2),
        cpu: Some(1),
        period: Some(10_000),
        read: Some(Read {
            time_enabled: Some(900),
            time_running: Some(800),
            values: vec![
                ReadValue {
                    value: 50,
                    id: Some(1),
                    lost: Some(0),
                },
                ReadValue {
                    value: 60,
                    id: Some(2),
                    lost: Some(3),
                },
            ],
        }),
        callchain: Some(vec![u64::MAX - 511, 0x4010]),
        raw: Some(b"hello"),
        branch_stack: Some(BranchStack {
            hw_idx: Some(1),
            entries: entries(),
            counters: Some(vec![7, 8]),
        }),
        regs_user: Some(Regs {
            abi: 2,
            mask: 0b110,
            values: vec![20, 21],
        }),
        stack_user: Some(StackUser {
            data: &[3; 16],
            dyn_size: Some(16),
        }),
        weight: Some(Weight::Struct {
            var1_dw: 1,
            var2_w: 2,
            var3_w: 3,
        }),
        data_src: Some(0x1234),
        transaction: Some(0),
        regs_intr: Some(Regs {
            abi: 2,
            mask: 1 << 63 | 1,
            values: vec![30, 31],
        }),
        phys_addr: Some(0x9_0000),
        cgroup: Some(33),
        data_page_size: Some(4096),
        code_page_size: Some(4096),
        aux: Some(&[0xaa; 8]),
    }
}

#[test]
fn every_field_at_once_in_either_byte_order() {
    check_sample(&full_format(), write_full_sample, &full_sample());
}

#[test]
fn a_record_read_in_the_wrong_byte_order_is_an_error_not_garbage() {
    let bytes = {
        let mut b = Bytes::sample(BIG);
        write_full_sample(&mut b);
        b.build()
    };
    assert!(parse_in(&full_format(), &bytes, LITTLE).is_err());
}

#[test]
fn sample_bytes_after_the_last_field_are_refused() {
    let f = format(raw::PERF_SAMPLE_IP);
    let e = error_of(&f, &Bytes::sample(LITTLE).u64(1).u64(0).build());
    assert_eq!((e.field, e.offset), ("sample", 16));
    assert_eq!(e.problem, Problem::Trailing { bytes: 8 });
}

#[test]
fn sample_cut_short_names_the_missing_field() {
    let f = full_format();
    let mut b = Bytes::sample(LITTLE);
    write_full_sample(&mut b);
    let whole = b.build();
    for len in (8..whole.len()).step_by(8) {
        let mut cut = whole[..len].to_vec();
        cut[6..8].copy_from_slice(&(len as u16).to_le_bytes());
        let e = error_of(&f, &cut);
        assert!(e.field.starts_with("sample."), "{len}: {e}");
        assert!(matches!(e.problem, Problem::Truncated { .. }), "{len}: {e}");
    }
}

#[test]
fn unknown_sample_type_bits_are_refused() {
    let f = format(raw::PERF_SAMPLE_MAX | raw::PERF_SAMPLE_IP);
    let e = error_of(&f, &Bytes::sample(LITTLE).u64(1).build());
    assert_eq!(e.field, "format.sample_type");
    assert!(e.to_string().contains("0x2000000"), "{e}");
}
