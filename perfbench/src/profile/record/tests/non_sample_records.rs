//! Records other than samples (`MMAP2`, `MMAP`, `COMM`, `LOST`, `FORK`, `EXIT`,
//! `THROTTLE`, `UNTHROTTLE`, the rest kept whole), with and without the `sample_id` trailer.

use super::*;

fn sample_id_value() -> SampleId {
    SampleId {
        pid: Some(100),
        tid: Some(101),
        time: Some(5_000),
        id: Some(7),
        stream_id: Some(8),
        cpu: Some(1),
        identifier: Some(7),
    }
}

#[test]
fn mmap2_with_inode_and_sample_id() {
    for order in ORDERS {
        let bytes = mmap2_bytes(order, MISC, true);
        let expected = Mmap2 {
            misc: MISC,
            pid: 100,
            tid: 101,
            addr: 0x40_0000,
            len: 0x1000,
            pgoff: 0,
            file: FileId::Inode {
                maj: 8,
                min: 1,
                ino: 1234,
                ino_generation: 5,
            },
            prot: 5,
            flags: 2,
            filename: b"/usr/bin/true",
            sample_id: Some(sample_id_value()),
        };
        let record = parse_in(&id_format(), &bytes, order).unwrap();
        assert_eq!(record.sample_id(), Some(&sample_id_value()));
        assert_eq!(record, Record::Mmap2(expected), "{order:?}");
    }
}

#[test]
fn mmap2_with_build_id_and_without_sample_id() {
    let misc = MISC | raw::PERF_RECORD_MISC_MMAP_BUILD_ID as u16;
    let f = SampleFormat {
        sample_id_all: false,
        ..id_format()
    };
    for order in ORDERS {
        let bytes = mmap2_bytes(order, misc, false);
        let Ok(Record::Mmap2(m)) = parse_in(&f, &bytes, order) else {
            panic!("{order:?}");
        };
        assert_eq!(m.file, FileId::BuildId(&[0xb1, 0xb2, 0xb3, 0xb4]));
        assert_eq!((m.filename, m.sample_id), (&b"/usr/bin/true"[..], None));
    }
    let mut bad = mmap2_bytes(LITTLE, misc, false);
    bad[40] = 21;
    let e = error_of(&f, &bad);
    assert_eq!((e.field, e.offset), ("mmap2.build_id_size", 40));
}

#[test]
fn mmap_with_and_without_sample_id() {
    for (f, with_id) in [(id_format(), true), (format(raw::PERF_SAMPLE_IP), false)] {
        let mut b = Bytes::record(raw::PERF_RECORD_MMAP, MISC, LITTLE);
        b.u32(1)
            .u32(2)
            .u64(0x1000)
            .u64(0x2000)
            .u64(0x10)
            .string(b"[vdso]");
        if with_id {
            write_sample_id(&mut b);
        }
        let bytes = b.build();
        let Ok(Record::Mmap(m)) = parse_in(&f, &bytes, LITTLE) else {
            panic!("mmap");
        };
        assert_eq!(
            (m.pid, m.tid, m.addr, m.len, m.pgoff),
            (1, 2, 0x1000, 0x2000, 0x10)
        );
        assert_eq!(m.filename, b"[vdso]");
        assert_eq!(m.sample_id, with_id.then(sample_id_value));
    }
}

#[test]
fn comm_with_sample_id() {
    for order in ORDERS {
        // Eight bytes of name take a whole word of NUL padding.
        for name in [&b"bench"[..], b"12345678", b""] {
            let bytes = comm_bytes(name, order);
            let expected = Comm {
                misc: raw::PERF_RECORD_MISC_COMM_EXEC as u16,
                pid: 100,
                tid: 101,
                comm: name,
                sample_id: Some(sample_id_value()),
            };
            assert_eq!(
                parse_in(&id_format(), &bytes, order),
                Ok(Record::Comm(expected))
            );
        }
    }
}

#[test]
fn names_without_nul_or_room_for_the_trailer_are_refused() {
    let mut b = Bytes::record(raw::PERF_RECORD_COMM, 0, LITTLE);
    b.u32(1).u32(2).bytes(b"12345678");
    write_sample_id(&mut b);
    let e = error_of(&id_format(), &b.build());
    assert_eq!(
        (e.field, e.offset, e.problem),
        ("comm.comm", 16, Problem::Unterminated)
    );

    let mut b = Bytes::record(raw::PERF_RECORD_COMM, 0, LITTLE);
    b.u32(1).u32(2).u64s(&[0; 5]);
    let e = error_of(&id_format(), &b.build());
    assert_eq!(e.field, "comm.comm");
    assert_eq!(
        e.problem,
        Problem::Truncated {
            needed: 49,
            left: 40
        }
    );
}

#[test]
fn lost_with_and_without_sample_id() {
    for order in ORDERS {
        let mut b = Bytes::record(raw::PERF_RECORD_LOST, 0, order);
        b.u64(7).u64(12);
        write_sample_id(&mut b);
        let expected = Lost {
            id: 7,
            lost: 12,
            sample_id: Some(sample_id_value()),
        };
        assert_eq!(
            parse_in(&id_format(), &b.build(), order),
            Ok(Record::Lost(expected))
        );
    }
    let bare = Bytes::record(raw::PERF_RECORD_LOST, 0, LITTLE)
        .u64(7)
        .u64(12)
        .build();
    let expected = Lost {
        id: 7,
        lost: 12,
        sample_id: None,
    };
    assert_eq!(
        parse_in(&SampleFormat::default(), &bare, LITTLE),
        Ok(Record::Lost(expected))
    );
    // Without sample_id_all, the trailer is trailing garbage.
    let mut b = Bytes::record(raw::PERF_RECORD_LOST, 0, LITTLE);
    b.u64(7).u64(12);
    write_sample_id(&mut b);
    let e = error_of(&SampleFormat::default(), &b.build());
    assert_eq!(
        (e.field, e.problem),
        ("lost", Problem::Trailing { bytes: 48 })
    );
}

#[test]
fn fork_exit_throttle_unthrottle() {
    let f = id_format();
    for (kind, name) in [
        (raw::PERF_RECORD_FORK, "fork"),
        (raw::PERF_RECORD_EXIT, "exit"),
    ] {
        let mut b = Bytes::record(kind, 0, BIG);
        b.u32(10).u32(1).u32(11).u32(2).u64(77);
        write_sample_id(&mut b);
        let task = Task {
            pid: 10,
            ppid: 1,
            tid: 11,
            ptid: 2,
            time: 77,
            sample_id: Some(sample_id_value()),
        };
        let bytes = b.build();
        let record = parse_in(&f, &bytes, BIG).unwrap();
        match (name, record) {
            ("fork", Record::Fork(t)) | ("exit", Record::Exit(t)) => assert_eq!(t, task),
            (_, other) => panic!("{name}: {other:?}"),
        }
        let short = Bytes::record(kind, 0, LITTLE)
            .u32(10)
            .u32(1)
            .u32(11)
            .u32(2)
            .build();
        assert_eq!(error_of(&f, &short).field, format!("{name}.time"));
    }
    for kind in [raw::PERF_RECORD_THROTTLE, raw::PERF_RECORD_UNTHROTTLE] {
        let mut b = Bytes::record(kind, 0, LITTLE);
        b.u64(5).u64(6).u64(7);
        write_sample_id(&mut b);
        let t = Throttle {
            time: 5,
            id: 6,
            stream_id: 7,
            sample_id: Some(sample_id_value()),
        };
        let expected = if kind == raw::PERF_RECORD_THROTTLE {
            Record::Throttle(t)
        } else {
            Record::Unthrottle(t)
        };
        assert_eq!(parse_in(&f, &b.build(), LITTLE), Ok(expected));
    }
}

#[test]
fn other_records_keep_their_body() {
    let bytes = Bytes::record(raw::PERF_RECORD_SWITCH, 0x2000, LITTLE)
        .u64(42)
        .build();
    let expected = Record::Other {
        kind: raw::PERF_RECORD_SWITCH,
        misc: 0x2000,
        body: &bytes[8..],
    };
    assert_eq!(parse_in(&id_format(), &bytes, LITTLE), Ok(expected));
    let empty = Bytes::record(68, 0, LITTLE).build(); // perf's FINISHED_ROUND: a bare header
    assert_eq!(
        parse_in(&id_format(), &empty, LITTLE),
        Ok(Record::Other {
            kind: 68,
            misc: 0,
            body: &[]
        })
    );
}
