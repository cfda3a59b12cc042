//! The sampling ring buffer: records copied out of an event's mmapped buffer.
//!
//! The kernel writes records (each starting with a `perf_event_header`, sizes multiples of 8)
//! into `2^n` data pages and advances `data_head`; [`Ring::drain`] reads the head (acquire),
//! copies every whole record between the tail and the head out (a record may wrap around the
//! end of the data area), and stores the new tail (release), which frees the space. A record
//! size of zero, not a multiple of 8, larger than the data area or running past the head is
//! corruption: the drain stops with [`RingError::Corrupt`] rather than loop or read garbage.
//!
//! Records the kernel could not write because the reader was slow arrive as
//! `PERF_RECORD_LOST` (how many were lost); `PERF_RECORD_THROTTLE` and `UNTHROTTLE` say the
//! kernel slowed the sampling down. [`DrainStats`] counts them so a summary can say so.

use std::fmt;

use crate::sys::{self, raw, EventFd, MappedRing};

/// Why a drain stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RingError {
    /// A record header that cannot be right (the buffer is corrupt or was misread).
    Corrupt {
        /// The (unwrapped) position of the record.
        at: u64,
        /// Its header's size field.
        size: u16,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// `data_head` moved backwards or past what the tail and the area size allow.
    BadHead {
        /// The head read.
        head: u64,
        /// The tail at the time.
        tail: u64,
    },
}

impl fmt::Display for RingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RingError::Corrupt { at, size, reason } => write!(
                f,
                "corrupt sampling buffer: the record at byte {at} has size {size} ({reason})"
            ),
            RingError::BadHead { head, tail } => write!(
                f,
                "corrupt sampling buffer: data_head {head} does not follow data_tail {tail}"
            ),
        }
    }
}

impl std::error::Error for RingError {}

/// What drains have copied so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DrainStats {
    /// Records copied.
    pub records: u64,
    /// Bytes copied.
    pub bytes: u64,
    /// `PERF_RECORD_SAMPLE` records.
    pub samples: u64,
    /// Samples the kernel dropped for want of space (the sum of the `PERF_RECORD_LOST`
    /// records' counts).
    pub lost: u64,
    /// `PERF_RECORD_LOST` records.
    pub lost_records: u64,
    /// `PERF_RECORD_THROTTLE` records.
    pub throttled: u64,
    /// `PERF_RECORD_UNTHROTTLE` records.
    pub unthrottled: u64,
}

/// An event's ring buffer, mapped.
#[derive(Debug)]
pub struct Ring {
    map: MappedRing,
    stats: DrainStats,
}

/// The `perf_event_header` fields of the record at `bytes` (at least 8 bytes).
fn header(bytes: &[u8]) -> (u32, u16) {
    let kind = u32::from_ne_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    let size = u16::from_ne_bytes([bytes[6], bytes[7]]);
    (kind, size)
}

impl Ring {
    /// Maps `data_pages` (a power of two) of ring buffer for the sampling event `fd`.
    ///
    /// Draining a `cpu-clock` sampling event of this thread (every 100 µs of its CPU time):
    ///
    /// ```
    /// use perfbench::profile::ring::Ring;
    /// use perfbench::sys::{new_attr, page_size, raw, EventFd, Scope};
    /// use std::time::{Duration, Instant};
    ///
    /// let mut attr = new_attr();
    /// attr.type_ = raw::PERF_TYPE_SOFTWARE;
    /// attr.config = raw::PERF_COUNT_SW_CPU_CLOCK as u64;
    /// attr.__bindgen_anon_1.sample_period = 100_000;
    /// attr.sample_type = raw::PERF_SAMPLE_IP as u64;
    /// attr.set_disabled(1);
    /// attr.set_exclude_kernel(1);
    /// attr.set_exclude_hv(1);
    /// let clock = EventFd::open(&mut attr, 0, -1, None).expect("cpu-clock sampling opens");
    /// let mut ring = Ring::new(&clock, 4)?;
    /// assert_eq!(ring.capacity(), 4 * page_size());
    ///
    /// let mut records = Vec::new();
    /// clock.enable(Scope::Event)?;
    /// let deadline = Instant::now() + Duration::from_secs(30);
    /// while ring.stats().samples < 3 && Instant::now() < deadline {
    ///     std::hint::black_box((0..10_000u64).sum::<u64>());
    ///     ring.drain(&mut records).unwrap();
    /// }
    /// clock.disable(Scope::Event)?;
    /// assert!(ring.stats().samples >= 3);
    /// assert_eq!(ring.stats().bytes, records.len() as u64);
    /// # Ok::<(), perfbench::sys::Errno>(())
    /// ```
    pub fn new(fd: &EventFd, data_pages: usize) -> Result<Ring, sys::Errno> {
        Ok(Ring {
            map: fd.map_ring(data_pages)?,
            stats: DrainStats::default(),
        })
    }

    /// A ring in anonymous memory with no event behind it, for tests and benchmarks of the
    /// reader: [`Ring::produce`] plays the kernel.
    ///
    /// ```
    /// use perfbench::profile::ring::Ring;
    /// use perfbench::sys::{page_size, raw};
    ///
    /// # // A record: `kind`, `size` bytes (header included), the rest zero.
    /// # fn record(kind: u32, size: u16) -> Vec<u8> {
    /// #     let mut r = vec![0u8; usize::from(size)];
    /// #     r[..4].copy_from_slice(&kind.to_ne_bytes());
    /// #     r[6..8].copy_from_slice(&size.to_ne_bytes());
    /// #     r
    /// # }
    /// let mut ring = Ring::simulated(1)?;
    /// assert_eq!(ring.capacity(), page_size());
    /// let sample = record(raw::PERF_RECORD_SAMPLE, 40);
    /// assert_eq!(ring.produce(&sample), 40);
    /// let mut out = Vec::new();
    /// assert_eq!(ring.drain(&mut out).unwrap(), 40);
    /// assert_eq!(out, sample);
    /// # Ok::<(), perfbench::sys::Errno>(())
    /// ```
    pub fn simulated(data_pages: usize) -> Result<Ring, sys::Errno> {
        Ok(Ring {
            map: MappedRing::anonymous(data_pages)?,
            stats: DrainStats::default(),
        })
    }

    /// The kernel's side of a [`simulated`](Ring::simulated) ring: appends whole records
    /// from `records` (back to back) while they fit in the free space, publishes the head,
    /// and returns how many bytes went in.
    ///
    /// Only whole records go in, and only while they fit:
    ///
    /// ```
    /// use perfbench::profile::ring::Ring;
    /// use perfbench::sys::raw;
    ///
    /// # // A record: `kind`, `size` bytes (header included), the rest zero.
    /// # fn record(kind: u32, size: u16) -> Vec<u8> {
    /// #     let mut r = vec![0u8; usize::from(size)];
    /// #     r[..4].copy_from_slice(&kind.to_ne_bytes());
    /// #     r[6..8].copy_from_slice(&size.to_ne_bytes());
    /// #     r
    /// # }
    /// let mut ring = Ring::simulated(1)?;
    /// let cap = ring.capacity();
    /// let big = record(raw::PERF_RECORD_SAMPLE, (cap / 2) as u16);
    /// let mut two = big.clone();
    /// two.extend_from_slice(&big);
    /// assert_eq!(ring.produce(&two), cap); // both fit: the ring is full
    /// assert_eq!(ring.produce(&record(raw::PERF_RECORD_SAMPLE, 8)), 0); // no room left
    /// ring.drain(&mut Vec::new()).unwrap(); // the reader frees the space
    /// assert_eq!(ring.produce(&two[..cap / 2 + 8]), cap / 2); // a cut-off record stays out
    /// # Ok::<(), perfbench::sys::Errno>(())
    /// ```
    pub fn produce(&mut self, records: &[u8]) -> usize {
        let head = self.map.head();
        let free = self.map.data_len() as u64 - (head - self.map.tail());
        let mut n = 0usize;
        while n + 8 <= records.len() {
            let (_, size) = header(&records[n..]);
            let size = usize::from(size).max(8);
            if (n + size) as u64 > free || n + size > records.len() {
                break;
            }
            n += size;
        }
        self.map.copy_in(head, &records[..n]);
        self.map.set_head(head + n as u64);
        n
    }

    /// The data area's size in bytes.
    ///
    /// See [`Ring::simulated`] for an example.
    pub fn capacity(&self) -> usize {
        self.map.data_len()
    }

    /// What has been drained so far.
    ///
    /// ```
    /// use perfbench::profile::ring::{DrainStats, Ring};
    /// use perfbench::sys::raw;
    ///
    /// # // A record: `kind`, `size` bytes (header included), the rest zero.
    /// # fn record(kind: u32, size: u16) -> Vec<u8> {
    /// #     let mut r = vec![0u8; usize::from(size)];
    /// #     r[..4].copy_from_slice(&kind.to_ne_bytes());
    /// #     r[6..8].copy_from_slice(&size.to_ne_bytes());
    /// #     r
    /// # }
    /// let mut ring = Ring::simulated(1)?;
    /// let mut lost = record(raw::PERF_RECORD_LOST, 24); // header, id, how many were lost
    /// lost[16..24].copy_from_slice(&17u64.to_ne_bytes());
    /// ring.produce(&record(raw::PERF_RECORD_SAMPLE, 16));
    /// ring.produce(&lost);
    /// ring.produce(&record(raw::PERF_RECORD_THROTTLE, 24));
    /// assert_eq!(ring.stats(), DrainStats::default()); // counted when drained
    /// ring.drain(&mut Vec::new()).unwrap();
    /// let s = ring.stats();
    /// assert_eq!((s.records, s.bytes, s.samples), (3, 64, 1));
    /// assert_eq!((s.lost_records, s.lost, s.throttled, s.unthrottled), (1, 17, 1, 0));
    /// # Ok::<(), perfbench::sys::Errno>(())
    /// ```
    pub fn stats(&self) -> DrainStats {
        self.stats
    }

    /// Appends every whole record now in the buffer to `out` (back to back, each with its
    /// header) and frees their space. Returns how many bytes were appended.
    ///
    /// Records come out whole and in order, also where they wrap around the end of the data area;
    /// a record whose size cannot be right stops the drain:
    ///
    /// ```
    /// use perfbench::profile::ring::{Ring, RingError};
    /// use perfbench::sys::raw;
    ///
    /// # // A record: `kind`, `size` bytes (header included), the rest zero.
    /// # fn record(kind: u32, size: u16) -> Vec<u8> {
    /// #     let mut r = vec![0u8; usize::from(size)];
    /// #     r[..4].copy_from_slice(&kind.to_ne_bytes());
    /// #     r[6..8].copy_from_slice(&size.to_ne_bytes());
    /// #     r
    /// # }
    /// let mut ring = Ring::simulated(1)?;
    /// let (mut want, mut got) = (Vec::new(), Vec::new());
    /// let mut i = 0;
    /// while want.len() < 3 * ring.capacity() {
    ///     // Sizes that do not divide the page: records straddle its end again and again.
    ///     let r = record(raw::PERF_RECORD_SAMPLE, 8 * (3 + i % 11));
    ///     assert_eq!(ring.produce(&r), r.len());
    ///     want.extend_from_slice(&r);
    ///     ring.drain(&mut got).unwrap();
    ///     i += 1;
    /// }
    /// assert_eq!(got, want);
    ///
    /// let mut ring = Ring::simulated(1)?;
    /// ring.produce(&record(raw::PERF_RECORD_SAMPLE, 12)); // not a multiple of 8
    /// let e = ring.drain(&mut Vec::new()).unwrap_err();
    /// assert!(matches!(e, RingError::Corrupt { size: 12, .. }), "{e}");
    /// assert!(e.to_string().ends_with("(not a multiple of 8)"), "{e}");
    /// # Ok::<(), perfbench::sys::Errno>(())
    /// ```
    pub fn drain(&mut self, out: &mut Vec<u8>) -> Result<usize, RingError> {
        let tail = self.map.tail();
        let head = self.map.head();
        if head < tail || head - tail > self.map.data_len() as u64 {
            return Err(RingError::BadHead { head, tail });
        }
        let start = out.len();
        let mut at = tail;
        let mut hdr = [0u8; 8];
        while head - at >= 8 {
            self.map.copy_out(at, &mut hdr);
            let (kind, size) = header(&hdr);
            let bad = |reason| RingError::Corrupt { at, size, reason };
            if size < 8 {
                return Err(bad("smaller than its header"));
            }
            if size % 8 != 0 {
                return Err(bad("not a multiple of 8"));
            }
            if u64::from(size) > head - at {
                return Err(bad("runs past data_head"));
            }
            let from = out.len();
            out.resize(from + size as usize, 0);
            self.map.copy_out(at, &mut out[from..]);
            self.count(kind, &out[from..]);
            at += u64::from(size);
        }
        self.map.set_tail(at);
        let n = out.len() - start;
        self.stats.bytes += n as u64;
        Ok(n)
    }

    fn count(&mut self, kind: u32, record: &[u8]) {
        self.stats.records += 1;
        match kind {
            raw::PERF_RECORD_SAMPLE => self.stats.samples += 1,
            raw::PERF_RECORD_LOST => {
                self.stats.lost_records += 1;
                // struct { header; u64 id; u64 lost; }
                if let Some(b) = record.get(16..24) {
                    let mut w = [0u8; 8];
                    w.copy_from_slice(b);
                    self.stats.lost += u64::from_ne_bytes(w);
                }
            }
            raw::PERF_RECORD_THROTTLE => self.stats.throttled += 1,
            raw::PERF_RECORD_UNTHROTTLE => self.stats.unthrottled += 1,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record of `kind` and `size` bytes whose body is `fill`.
    fn record(kind: u32, size: u16, fill: u8) -> Vec<u8> {
        let mut r = vec![fill; size as usize];
        r[..4].copy_from_slice(&kind.to_ne_bytes());
        r[4..6].copy_from_slice(&0u16.to_ne_bytes());
        r[6..8].copy_from_slice(&size.to_ne_bytes());
        r
    }

    #[test]
    fn records_that_wrap_come_out_whole_and_in_order() {
        let mut ring = Ring::simulated(1).unwrap();
        let cap = ring.capacity();
        let mut want = Vec::new();
        let mut got = Vec::new();
        // Sizes that do not divide the page: records straddle its end again and again.
        for i in 0..2000u32 {
            let r = record(raw::PERF_RECORD_SAMPLE, 8 * (3 + (i % 11) as u16), i as u8);
            assert_eq!(ring.produce(&r), r.len());
            want.extend_from_slice(&r);
            if i % 7 == 6 {
                ring.drain(&mut got).unwrap();
            }
        }
        ring.drain(&mut got).unwrap();
        assert_eq!(got, want);
        assert!(want.len() > 10 * cap);
        assert_eq!(ring.stats().samples, 2000);
        assert_eq!(ring.stats().bytes, want.len() as u64);
    }

    #[test]
    fn lost_and_throttling_are_counted() {
        let mut ring = Ring::simulated(1).unwrap();
        let mut lost = record(raw::PERF_RECORD_LOST, 24, 0);
        lost[16..24].copy_from_slice(&17u64.to_ne_bytes());
        ring.produce(&lost);
        ring.produce(&record(raw::PERF_RECORD_THROTTLE, 24, 0));
        ring.produce(&record(raw::PERF_RECORD_UNTHROTTLE, 24, 0));
        let mut out = Vec::new();
        ring.drain(&mut out).unwrap();
        let s = ring.stats();
        assert_eq!(
            (s.lost_records, s.lost, s.throttled, s.unthrottled),
            (1, 17, 1, 1)
        );
    }

    #[test]
    fn a_corrupt_size_stops_the_drain_instead_of_looping() {
        for (size, reason) in [
            (0u16, "smaller than its header"),
            (12, "not a multiple of 8"),
            (4096 + 64, "runs past data_head"),
        ] {
            let ring = Ring::simulated(1).unwrap();
            let mut r = record(raw::PERF_RECORD_SAMPLE, 64, 1);
            r[6..8].copy_from_slice(&size.to_ne_bytes());
            ring.map.copy_in(0, &r);
            ring.map.set_head(64);
            let mut ring = ring;
            let e = ring.drain(&mut Vec::new()).unwrap_err();
            assert!(e.to_string().contains(reason), "{size}: {e}");
        }
        // A head behind the tail, or further ahead than the buffer holds.
        let mut ring = Ring::simulated(1).unwrap();
        ring.map.set_head(1 << 20);
        assert!(matches!(
            ring.drain(&mut Vec::new()),
            Err(RingError::BadHead { .. })
        ));
    }
}
