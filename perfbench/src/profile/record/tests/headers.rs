//! The record header: sizes below the header, and a record that disagrees with its header's
//! size.

use super::*;

#[test]
fn headers_of_bad_sizes() {
    assert_eq!(
        header_in(&[1, 0, 0, 0, 0, 0, 16, 0], LITTLE),
        Ok(Header {
            kind: 1,
            misc: 0,
            size: 16
        })
    );
    let e = header(&[1, 0, 0, 0]).unwrap_err();
    assert_eq!(
        (e.field, e.problem),
        ("header", Problem::Truncated { needed: 8, left: 4 })
    );
    for size in [0u16, 7] {
        let mut bytes = vec![9, 0, 0, 0, 0, 0, 0, 0];
        bytes[6..8].copy_from_slice(&size.to_le_bytes());
        let e = header_in(&bytes, LITTLE).unwrap_err();
        assert_eq!(
            (e.field, e.problem),
            ("header.size", Problem::SizeBelowHeader { size })
        );
        assert!(e.to_string().contains("below the 8-byte header"), "{e}");
        assert_eq!(
            error_of(&id_format(), &bytes).problem,
            Problem::SizeBelowHeader { size }
        );
    }
}

#[test]
fn a_record_and_its_header_size_must_agree() {
    let f = format(raw::PERF_SAMPLE_IP);
    let mut bytes = Bytes::sample(LITTLE).u64(1).build();
    bytes.extend_from_slice(&[0; 8]);
    let e = error_of(&f, &bytes);
    assert_eq!(
        (e.field, e.problem),
        ("header.size", Problem::Trailing { bytes: 8 })
    );
    let e = error_of(&f, &bytes[..12]);
    assert_eq!(
        e.problem,
        Problem::Truncated {
            needed: 16,
            left: 12
        }
    );
}
