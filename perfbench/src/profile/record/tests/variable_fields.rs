//! The sample's variable-length fields: callchain, raw data, registers, user stack and AUX
//! data, borrowed from the input, and their counts and sizes checked.

use super::*;

#[test]
fn callchain_of_three_and_of_none() {
    let f = format(raw::PERF_SAMPLE_CALLCHAIN);
    let ips = [u64::MAX - 511, 0x4000, 0x4100]; // PERF_CONTEXT_USER, then two frames
    let expected = Sample {
        callchain: Some(ips.to_vec()),
        ..base()
    };
    check_sample(
        &f,
        |b| {
            b.u64(3).u64s(&[u64::MAX - 511, 0x4000, 0x4100]);
        },
        &expected,
    );
    let empty = Sample {
        callchain: Some(Vec::new()),
        ..base()
    };
    check_sample(
        &f,
        |b| {
            b.u64(0);
        },
        &empty,
    );
}

#[test]
fn raw_data_is_borrowed_without_its_padding() {
    let f = format(raw::PERF_SAMPLE_RAW);
    // u32 size + 4 bytes: exactly one word.
    let expected = Sample {
        raw: Some(&[1, 2, 3, 4]),
        ..base()
    };
    check_sample(
        &f,
        |b| {
            b.u32(4).bytes(&[1, 2, 3, 4]);
        },
        &expected,
    );
    // u32 size + 9 bytes, padded to 16.
    let nine = [9; 9];
    let expected = Sample {
        raw: Some(&nine),
        ..base()
    };
    check_sample(
        &f,
        |b| {
            b.u32(9).bytes(&[9; 9]).pad8();
        },
        &expected,
    );
    // What the kernel writes for an event without raw data: size 4, four zero bytes.
    let expected = Sample {
        raw: Some(&[0; 4]),
        ..base()
    };
    check_sample(
        &f,
        |b| {
            b.u32(4).u32(0);
        },
        &expected,
    );
    let e = error_of(&f, &Bytes::sample(LITTLE).u32(9).bytes(&[9; 9]).build());
    assert_eq!(e.field, "sample.raw.padding");
    let e = error_of(&f, &Bytes::sample(LITTLE).u32(u32::MAX).u32(0).build());
    assert_eq!(e.field, "sample.raw.data");
    assert_eq!(
        e.problem,
        Problem::Truncated {
            needed: u64::from(u32::MAX),
            left: 4
        }
    );
}

#[test]
fn regs_with_abi_none_and_with_a_mask() {
    for (flag, mask_of) in [
        (
            raw::PERF_SAMPLE_REGS_USER,
            (|f: &mut SampleFormat| &mut f.sample_regs_user) as fn(&mut SampleFormat) -> &mut u64,
        ),
        (raw::PERF_SAMPLE_REGS_INTR, |f: &mut SampleFormat| {
            &mut f.sample_regs_intr
        }),
    ] {
        let mut f = format(flag);
        *mask_of(&mut f) = 0b1011;
        let regs = |abi, values: &[u64]| Regs {
            abi,
            mask: 0b1011,
            values: values.to_vec(),
        };
        let set = |r: Regs| {
            if flag == raw::PERF_SAMPLE_REGS_USER {
                Sample {
                    regs_user: Some(r),
                    ..base()
                }
            } else {
                Sample {
                    regs_intr: Some(r),
                    ..base()
                }
            }
        };
        check_sample(
            &f,
            |b| {
                b.u64(0);
            },
            &set(regs(0, &[])),
        );
        let abi64 = u64::from(raw::PERF_SAMPLE_REGS_ABI_64);
        let expected = set(regs(abi64, &[10, 11, 13]));
        check_sample(
            &f,
            |b| {
                b.u64(2).u64s(&[10, 11, 13]);
            },
            &expected,
        );
        let r = regs(abi64, &[10, 11, 13]);
        assert_eq!(
            (r.get(0), r.get(1), r.get(2), r.get(3)),
            (Some(10), Some(11), None, Some(13))
        );
        assert_eq!((r.get(63), r.get(64)), (None, None));
        let e = error_of(&f, &Bytes::sample(LITTLE).u64(2).u64s(&[10, 11]).build());
        assert!(e.field.ends_with(".regs"), "{e}");
        assert_eq!(
            e.problem,
            Problem::Truncated {
                needed: 24,
                left: 16
            }
        );
    }
}

#[test]
fn stack_user_empty_and_full() {
    let f = format(raw::PERF_SAMPLE_STACK_USER);
    let empty = Sample {
        stack_user: Some(StackUser {
            data: &[],
            dyn_size: None,
        }),
        ..base()
    };
    check_sample(
        &f,
        |b| {
            b.u64(0);
        },
        &empty,
    );
    let data = [7u8; 16];
    let full = Sample {
        stack_user: Some(StackUser {
            data: &data,
            dyn_size: Some(8),
        }),
        ..base()
    };
    check_sample(
        &f,
        |b| {
            b.u64(16).bytes(&[7; 16]).u64(8);
        },
        &full,
    );
    assert_eq!(full.stack_user.unwrap().dumped(), &[7; 8]);

    let too_much = Bytes::sample(LITTLE)
        .u64(16)
        .bytes(&[7; 16])
        .u64(17)
        .build();
    let e = error_of(&f, &too_much);
    assert_eq!((e.field, e.offset), ("sample.stack_user.dyn_size", 32));
    let huge = Bytes::sample(LITTLE).u64(u64::MAX).u64(0).build();
    let e = error_of(&f, &huge);
    assert_eq!(e.field, "sample.stack_user.data");
    let no_dyn_size = Bytes::sample(LITTLE).u64(8).bytes(&[1; 8]).build();
    assert_eq!(
        error_of(&f, &no_dyn_size).field,
        "sample.stack_user.dyn_size"
    );
}

#[test]
fn aux_is_borrowed() {
    let f = format(raw::PERF_SAMPLE_AUX);
    let data = [0xa5u8; 16];
    let expected = Sample {
        aux: Some(&data),
        ..base()
    };
    check_sample(
        &f,
        |b| {
            b.u64(16).bytes(&[0xa5; 16]);
        },
        &expected,
    );
    let none = Sample {
        aux: Some(&[]),
        ..base()
    };
    check_sample(
        &f,
        |b| {
            b.u64(0);
        },
        &none,
    );
    let e = error_of(&f, &Bytes::sample(LITTLE).u64(17).bytes(&[0; 16]).build());
    assert_eq!(
        e.problem,
        Problem::Truncated {
            needed: 17,
            left: 16
        }
    );
}
