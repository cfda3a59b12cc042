//! `PERF_SAMPLE_READ`: one value or a group, with every combination of `read_format` bits;
//! implausible group sizes and unknown bits refused.

use super::*;

/// Every combination of the four optional `read_format` bits.
fn read_bit_sets() -> impl Iterator<Item = (bool, bool, bool, bool, u32)> {
    (0..16u32).map(|i| {
        let (enabled, running, id, lost) = (i & 1 != 0, i & 2 != 0, i & 4 != 0, i & 8 != 0);
        let bits = [
            (enabled, raw::PERF_FORMAT_TOTAL_TIME_ENABLED),
            (running, raw::PERF_FORMAT_TOTAL_TIME_RUNNING),
            (id, raw::PERF_FORMAT_ID),
            (lost, raw::PERF_FORMAT_LOST),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .fold(0, |acc, (_, bit)| acc | bit);
        (enabled, running, id, lost, bits)
    })
}

#[test]
fn read_single_with_every_read_format() {
    for (enabled, running, id, lost, bits) in read_bit_sets() {
        let expected = Sample {
            read: Some(Read {
                time_enabled: enabled.then_some(200),
                time_running: running.then_some(150),
                values: vec![ReadValue {
                    value: 42,
                    id: id.then_some(9),
                    lost: lost.then_some(1),
                }],
            }),
            ..base()
        };
        let write = |b: &mut Bytes| {
            b.u64(42);
            [(enabled, 200), (running, 150), (id, 9), (lost, 1)]
                .iter()
                .filter(|(on, _)| *on)
                .for_each(|&(_, v)| {
                    b.u64(v);
                });
        };
        check_sample(&read_format(bits), write, &expected);
    }
}

#[test]
fn read_group_with_every_read_format() {
    for (enabled, running, id, lost, bits) in read_bit_sets() {
        let f = SampleFormat {
            group_members: 3,
            ..read_format(bits | raw::PERF_FORMAT_GROUP)
        };
        let values = (0..3)
            .map(|i| ReadValue {
                value: 100 + i,
                id: id.then_some(10 + i),
                lost: lost.then_some(i),
            })
            .collect();
        let expected = Sample {
            read: Some(Read {
                time_enabled: enabled.then_some(200),
                time_running: running.then_some(150),
                values,
            }),
            ..base()
        };
        let write = |b: &mut Bytes| {
            b.u64(3);
            [(enabled, 200), (running, 150)]
                .iter()
                .filter(|(on, _)| *on)
                .for_each(|&(_, v)| {
                    b.u64(v);
                });
            for i in 0..3 {
                b.u64(100 + i);
                [(id, 10 + i), (lost, i)]
                    .iter()
                    .filter(|(on, _)| *on)
                    .for_each(|&(_, v)| {
                        b.u64(v);
                    });
            }
        };
        check_sample(&f, write, &expected);
        // With the group size unknown, `nr` decides.
        check_sample(
            &SampleFormat {
                group_members: 0,
                ..f
            },
            write,
            &expected,
        );
    }
}

#[test]
fn read_group_nr_must_be_plausible() {
    let f = SampleFormat {
        group_members: 2,
        ..read_format(raw::PERF_FORMAT_GROUP | raw::PERF_FORMAT_ID)
    };
    let three = Bytes::sample(LITTLE)
        .u64(3)
        .u64s(&[1, 2, 3, 4, 5, 6])
        .build();
    let e = error_of(&f, &three);
    assert_eq!((e.field, e.offset), ("sample.read.nr", 8));
    assert_eq!(
        e.problem,
        Problem::Count {
            found: 3,
            expected: 2
        }
    );
    assert!(
        e.to_string().contains("count 3 where the format says 2"),
        "{e}"
    );

    let zero = Bytes::sample(LITTLE).u64(0).build();
    let e = error_of(&f, &zero);
    assert!(
        matches!(e.problem, Problem::Implausible { value: 0, .. }),
        "{e}"
    );

    let unknown = SampleFormat {
        group_members: 0,
        ..f
    };
    let huge = Bytes::sample(LITTLE).u64(u64::MAX).u64s(&[1, 2]).build();
    let e = error_of(&unknown, &huge);
    assert_eq!(e.field, "sample.read.nr");
    assert_eq!(
        e.problem,
        Problem::Truncated {
            needed: u64::MAX,
            left: 16
        }
    );
}

#[test]
fn unknown_read_format_bits_are_refused() {
    let f = read_format(raw::PERF_FORMAT_MAX);
    let e = error_of(&f, &Bytes::sample(LITTLE).u64(1).build());
    assert_eq!(e.field, "format.read_format");
    assert_eq!(
        e.problem,
        Problem::UnknownBits {
            bits: u64::from(raw::PERF_FORMAT_MAX)
        }
    );
}
