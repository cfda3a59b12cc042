//! `PERF_SAMPLE_BRANCH_STACK`: with and without the hardware index and branch counters, and
//! counts that run past the record.

use super::*;

#[test]
fn branch_stack_without_hw_index() {
    let expected = Sample {
        branch_stack: Some(BranchStack {
            hw_idx: None,
            entries: entries(),
            counters: None,
        }),
        ..base()
    };
    check_sample(&branch_format(0), |b| write_entries(b.u64(2)), &expected);
    let empty = Sample {
        branch_stack: Some(BranchStack::default()),
        ..base()
    };
    check_sample(
        &branch_format(0),
        |b| {
            b.u64(0);
        },
        &empty,
    );
}

#[test]
fn branch_stack_with_hw_index() {
    let f = branch_format(raw::PERF_SAMPLE_BRANCH_HW_INDEX);
    let expected = Sample {
        branch_stack: Some(BranchStack {
            hw_idx: Some(31),
            entries: entries(),
            counters: None,
        }),
        ..base()
    };
    check_sample(&f, |b| write_entries(b.u64(2).u64(31)), &expected);
}

#[test]
fn branch_stack_with_counters() {
    let f = branch_format(raw::PERF_SAMPLE_BRANCH_COUNTERS);
    let expected = Sample {
        branch_stack: Some(BranchStack {
            hw_idx: None,
            entries: entries(),
            counters: Some(vec![5, 6]),
        }),
        ..base()
    };
    let write = |b: &mut Bytes| {
        write_entries(b.u64(2));
        b.u64s(&[5, 6]);
    };
    check_sample(&f, write, &expected);
}

#[test]
fn branch_stack_counts_that_overrun() {
    let f = branch_format(raw::PERF_SAMPLE_BRANCH_HW_INDEX);
    let mut b = Bytes::sample(LITTLE);
    b.u64(3).u64(0);
    write_entries(&mut b);
    let e = error_of(&f, &b.build());
    assert_eq!((e.field, e.offset), ("sample.branch_stack.nr", 8));
    assert_eq!(
        e.problem,
        Problem::Truncated {
            needed: 8 + 3 * 24,
            left: 56
        }
    );
    let e = error_of(&f, &Bytes::sample(LITTLE).u64(u64::MAX / 2).u64(0).build());
    assert_eq!(
        e.problem,
        Problem::Truncated {
            needed: u64::MAX,
            left: 8
        }
    );
}
