//! 20,000 mutants of valid records through `parse` and `split`: errors, never panics.

use super::*;

/// Valid records of every decoded type, native byte order, with their formats.
fn corpus() -> Vec<(SampleFormat, Vec<u8>)> {
    let order = ByteOrder::NATIVE;
    let full = native(write_full_sample);
    let mut lost = Bytes::record(raw::PERF_RECORD_LOST, 0, order);
    lost.u64(1).u64(2);
    write_sample_id(&mut lost);
    let mut fork = Bytes::record(raw::PERF_RECORD_FORK, 0, order);
    fork.u32(1).u32(2).u32(3).u32(4).u64(5);
    write_sample_id(&mut fork);
    let build_id = MISC | raw::PERF_RECORD_MISC_MMAP_BUILD_ID as u16;
    let branches = native(|b| write_entries(b.u64(2).u64(31)));
    vec![
        (full_format(), full),
        (id_format(), mmap2_bytes(order, MISC, true)),
        (id_format(), mmap2_bytes(order, build_id, true)),
        (id_format(), comm_bytes(b"benchmark", order)),
        (id_format(), lost.build()),
        (id_format(), fork.build()),
        (branch_format(raw::PERF_SAMPLE_BRANCH_HW_INDEX), branches),
        (
            SampleFormat {
                group_members: 3,
                ..read_format(raw::PERF_FORMAT_GROUP)
            },
            native(|b| {
                b.u64(3).u64s(&[1, 2, 3]);
            }),
        ),
    ]
}

fn mutate(rng: &mut crate::rng::Rng, f: &mut SampleFormat, bytes: &mut Vec<u8>) {
    let len = bytes.len();
    match rng.below(6) {
        0 => {
            for _ in 0..=rng.below(4) {
                let at = rng.below(len);
                bytes[at] ^= 1 << rng.below(8);
            }
        }
        1 => {
            bytes.truncate(rng.below(len));
            if bytes.len() >= 8 && rng.below(2) == 0 {
                let size = bytes.len() as u16;
                bytes[6..8].copy_from_slice(&size.to_ne_bytes());
            }
        }
        2 => {
            const HUGE: [u64; 6] = [u64::MAX, u64::MAX / 8, u64::MAX / 24, 1 << 32, 1 << 16, 255];
            let at = 8 * rng.below(len / 8);
            let v = if rng.below(4) == 0 {
                rng.next_u64()
            } else {
                HUGE[rng.below(HUGE.len())]
            };
            if rng.below(2) == 0 {
                bytes[at..at + 8].copy_from_slice(&v.to_ne_bytes());
            } else {
                bytes[at..at + 4].copy_from_slice(&(v as u32).to_ne_bytes());
            }
        }
        3 => {
            let sizes = [0, 7, 8, len as u16 - 8, len as u16 + 8, u16::MAX];
            let size = sizes[rng.below(sizes.len())];
            bytes[6..8].copy_from_slice(&size.to_ne_bytes());
        }
        4 => {
            for _ in 0..=rng.below(16) {
                bytes.push(rng.next_u64() as u8);
            }
            if rng.below(2) == 0 {
                let size = bytes.len() as u16;
                bytes[6..8].copy_from_slice(&size.to_ne_bytes());
            }
        }
        _ => match rng.below(4) {
            0 => f.sample_type ^= 1 << rng.below(26),
            1 => f.read_format ^= 1 << rng.below(6),
            2 => f.branch_sample_type ^= 1 << rng.below(20),
            _ => f.group_members = rng.below(4),
        },
    }
}

/// 20,000 mutants of valid records (flipped bits, cuts, huge sizes and counts, bad header
/// sizes, extra bytes, a mismatched format) through `parse` and `split`: errors, never panics.
#[test]
fn mutants_never_panic() {
    let corpus = corpus();
    let mut rng = crate::rng::Rng::new(0x7065_7266_6265_6e63);
    let (mut ok, mut failed) = (0, 0);
    for i in 0..20_000 {
        let (mut f, mut bytes) = corpus[i % corpus.len()].clone();
        mutate(&mut rng, &mut f, &mut bytes);
        for order in ORDERS {
            match parse_in(&f, &bytes, order) {
                Ok(_) => ok += 1,
                Err(e) => {
                    assert!(!e.to_string().is_empty());
                    failed += 1;
                }
            }
        }
        let buf = [bytes.clone(), corpus[0].1.clone(), bytes].concat();
        for record in split(&buf).flatten() {
            let _ = parse(&f, record);
        }
    }
    assert!(ok > 1_000 && failed > 10_000, "ok {ok}, failed {failed}");
}
