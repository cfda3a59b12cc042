//! `split()` and `split_in`: a buffer of back-to-back records cut into records, stopping at
//! the first bad size.

use super::*;

#[test]
fn split_walks_back_to_back_records() {
    let a = native(|b| {
        b.u64(1);
    });
    let other = Bytes::record(68, 0, ByteOrder::NATIVE).build();
    let c = comm_bytes(b"x", ByteOrder::NATIVE);
    let buf = [a.clone(), other.clone(), c.clone()].concat();
    let records: Vec<&[u8]> = split(&buf).map(Result::unwrap).collect();
    assert_eq!(records, [&a[..], &other[..], &c[..]]);
    assert!(matches!(
        parse(&format(raw::PERF_SAMPLE_IP), records[0]),
        Ok(Record::Sample(_))
    ));
    assert!(matches!(
        parse(&id_format(), records[2]),
        Ok(Record::Comm(_))
    ));
    let mut it = split(&buf);
    it.next();
    assert_eq!(it.offset(), a.len());
    assert_eq!(split(&[]).count(), 0);
}

#[test]
fn split_stops_at_the_first_bad_size() {
    let good = native(|b| {
        b.u64(1);
    });
    for (size, problem) in [
        (0u16, Problem::SizeBelowHeader { size: 0 }),
        (4, Problem::SizeBelowHeader { size: 4 }),
        (
            64,
            Problem::Truncated {
                needed: 64,
                left: 32,
            },
        ),
    ] {
        let mut bad = good.clone();
        bad[6..8].copy_from_slice(&size.to_ne_bytes());
        let buf = [good.clone(), bad, good.clone()].concat();
        let items: Vec<_> = split(&buf).collect();
        assert_eq!(items.len(), 2, "size {size}");
        assert_eq!(items[0], Ok(&good[..]));
        let e = items[1].unwrap_err();
        assert_eq!(
            (e.field, e.offset, e.problem),
            ("header.size", 16 + 6, problem)
        );
    }
    let cut = [good.clone(), vec![1, 2, 3]].concat();
    let e = split(&cut).nth(1).unwrap().unwrap_err();
    assert_eq!((e.field, e.offset), ("header", 16));
    assert_eq!(e.problem, Problem::Truncated { needed: 8, left: 3 });
}

#[test]
fn split_in_the_other_byte_order() {
    let order = ByteOrder::NATIVE.swapped();
    let a = Bytes::record(raw::PERF_RECORD_LOST, 0, order)
        .u64(1)
        .u64(2)
        .build();
    let buf = [a.clone(), a.clone()].concat();
    let records: Vec<_> = split_in(&buf, order).collect::<Result<_, _>>().unwrap();
    assert_eq!(records.len(), 2);
    let lost = Lost {
        id: 1,
        lost: 2,
        sample_id: None,
    };
    assert_eq!(
        parse_in(&SampleFormat::default(), records[1], order),
        Ok(Record::Lost(lost))
    );
    // Read in the native order, the big size (a swapped 32) runs past the buffer.
    assert!(split(&buf).next().unwrap().is_err());
}
