//! `SampleFormat`'s own methods: the `sample_id` trailer's size and `from_attr`.

use super::*;

#[test]
fn sample_id_size_counts_the_trailer_words() {
    assert_eq!(id_format().sample_id_size(), 48);
    assert_eq!(
        SampleFormat {
            sample_id_all: false,
            ..id_format()
        }
        .sample_id_size(),
        0
    );
    assert_eq!(full_format().sample_id_size(), 48);
}

#[test]
fn from_attr_copies_the_layout_fields() {
    let mut attr = sys::new_attr();
    attr.sample_type = u64::from(raw::PERF_SAMPLE_IP | raw::PERF_SAMPLE_BRANCH_STACK);
    attr.read_format = u64::from(raw::PERF_FORMAT_GROUP);
    attr.branch_sample_type = u64::from(raw::PERF_SAMPLE_BRANCH_ANY);
    attr.sample_regs_user = 0xff;
    attr.sample_regs_intr = 0xf;
    attr.set_sample_id_all(1);
    let f = SampleFormat::from_attr(&attr, 3);
    assert_eq!(
        f,
        SampleFormat {
            sample_type: attr.sample_type,
            read_format: attr.read_format,
            branch_sample_type: attr.branch_sample_type,
            sample_regs_user: 0xff,
            sample_regs_intr: 0xf,
            sample_id_all: true,
            group_members: 3,
        }
    );
}
