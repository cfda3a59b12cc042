//! [`PerfData`]: a `perf.data` file read back (the header, attributes, features and records),
//! for the tests and for a profile's summary.

use super::*;

/// Why a perf.data file could not be read. Every message says where in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError(pub String);

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ReadError {}

/// A perf.data file read into memory.
#[derive(Debug, Clone)]
pub struct PerfData {
    /// Whether the file is in the other byte order than this machine's.
    pub swapped: bool,
    /// Each attr's bytes (`attr_size - 16` of them, in the file's byte order) and ids.
    pub attrs: Vec<(Vec<u8>, Vec<u64>)>,
    /// The data section's records (in the file's byte order).
    pub data: Vec<u8>,
    /// The feature bits set, ascending.
    pub feature_bits: Vec<u32>,
    /// The features this reader knows, decoded.
    pub features: Features,
    /// The event names of `EVENT_DESC`, with their ids.
    pub event_names: Vec<(String, Vec<u64>)>,
}

/// A bounds-checked reader in the file's byte order.
pub(super) struct Cursor<'a> {
    pub(super) data: &'a [u8],
    pub(super) swapped: bool,
}

impl Cursor<'_> {
    pub(super) fn bytes(&self, at: u64, len: u64, what: &str) -> Result<&[u8], ReadError> {
        let end = at.checked_add(len);
        match end {
            Some(end) if end <= self.data.len() as u64 => Ok(&self.data[at as usize..end as usize]),
            _ => Err(ReadError(format!(
                "{what} at byte {at} ({len} bytes) runs past the end of the file ({} bytes)",
                self.data.len()
            ))),
        }
    }

    pub(super) fn u64(&self, at: u64, what: &str) -> Result<u64, ReadError> {
        let b: [u8; 8] = self.bytes(at, 8, what)?.try_into().expect("8 bytes");
        let v = u64::from_ne_bytes(b);
        Ok(if self.swapped { v.swap_bytes() } else { v })
    }

    pub(super) fn u32(&self, at: u64, what: &str) -> Result<u32, ReadError> {
        let b: [u8; 4] = self.bytes(at, 4, what)?.try_into().expect("4 bytes");
        let v = u32::from_ne_bytes(b);
        Ok(if self.swapped { v.swap_bytes() } else { v })
    }

    /// perf's string at `at`: (the text, the bytes it takes).
    pub(super) fn string(&self, at: u64, what: &str) -> Result<(String, u64), ReadError> {
        let len = u64::from(self.u32(at, what)?);
        let raw = self.bytes(at + 4, len, what)?;
        let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
        Ok((String::from_utf8_lossy(&raw[..end]).into_owned(), 4 + len))
    }
}

impl PerfData {
    /// Reads a whole perf.data file.
    ///
    /// ```
    /// use perfbench::profile::perfdata::{Features, PerfData, Writer};
    ///
    /// # let dir = std::env::temp_dir().join(format!("perfbench-doc-perfdata-read-{}", std::process::id()));
    /// # let mut attr = perfbench::sys::new_attr();
    /// # attr.size = perfbench::profile::perfdata::MAX_ATTR_SIZE;
    /// # attr.sample_type = u64::from(perfbench::sys::raw::PERF_SAMPLE_IP);
    /// # let event = perfbench::profile::perfdata::EventDesc { attr, ids: vec![42], name: "demo/fib".into() };
    /// let path = dir.join("perf.data");
    /// Writer::create(&path, vec![event])?.finish(&Features::default())?;
    /// let data = PerfData::read(&path)?;
    /// assert!(!data.swapped);
    /// assert_eq!(data.attrs.len(), 1);
    /// assert!(data.data.is_empty());
    ///
    /// let missing = PerfData::read(&dir.join("missing.data")).unwrap_err();
    /// assert!(missing.to_string().contains("missing.data: cannot read"), "{missing}");
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read(path: &Path) -> Result<PerfData, ReadError> {
        let data = std::fs::read(path)
            .map_err(|e| ReadError(format!("{}: cannot read: {e}", path.display())))?;
        PerfData::parse(&data).map_err(|e| ReadError(format!("{}: {e}", path.display())))
    }

    /// Reads a perf.data file from its bytes.
    ///
    /// ```
    /// use perfbench::profile::perfdata::{feature, Features, PerfData, Writer};
    ///
    /// # let dir = std::env::temp_dir().join(format!("perfbench-doc-perfdata-parse-{}", std::process::id()));
    /// # let mut attr = perfbench::sys::new_attr();
    /// # attr.size = perfbench::profile::perfdata::MAX_ATTR_SIZE;
    /// # attr.sample_type = u64::from(perfbench::sys::raw::PERF_SAMPLE_IP);
    /// # let event = perfbench::profile::perfdata::EventDesc { attr, ids: vec![42], name: "demo/fib".into() };
    /// let path = dir.join("perf.data");
    /// Writer::create(&path, vec![event])?.finish(&Features::default())?;
    /// let bytes = std::fs::read(&path)?;
    /// let data = PerfData::parse(&bytes)?;
    /// assert_eq!(data.feature_bits, [feature::EVENT_DESC]); // always written
    ///
    /// let e = PerfData::parse(b"#!/bin/sh\n").unwrap_err();
    /// assert!(e.to_string().starts_with("not a perf.data file"), "{e}");
    /// let e = PerfData::parse(&bytes[..bytes.len() - 1]).unwrap_err();
    /// assert!(e.to_string().contains("runs past the end of the file"), "{e}");
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn parse(bytes: &[u8]) -> Result<PerfData, ReadError> {
        let magic = bytes
            .get(..8)
            .map(|b| u64::from_ne_bytes(b.try_into().expect("8 bytes")))
            .ok_or_else(|| ReadError("shorter than a perf.data header".into()))?;
        let swapped = if magic == MAGIC {
            false
        } else if magic.swap_bytes() == MAGIC {
            true
        } else {
            return Err(ReadError(
                "not a perf.data file (no PERFILE2 magic at byte 0; pipe-mode files are not \
                 read)"
                    .into(),
            ));
        };
        let c = Cursor {
            data: bytes,
            swapped,
        };
        let header_size = c.u64(8, "the header size")?;
        if header_size < HEADER_SIZE {
            return Err(ReadError(format!(
                "header size {header_size} is smaller than {HEADER_SIZE}"
            )));
        }
        let attr_size = c.u64(16, "attr_size")?;
        if !(16 + u64::from(raw::PERF_ATTR_SIZE_VER0)..=4096).contains(&attr_size) {
            return Err(ReadError(format!("attr_size {attr_size} is implausible")));
        }
        let (attrs_at, attrs_len) = (c.u64(24, "attrs")?, c.u64(32, "attrs")?);
        let (data_at, data_len) = (c.u64(40, "data")?, c.u64(48, "data")?);
        let mut bits = Vec::new();
        for w in 0..4u64 {
            let word = c.u64(72 + 8 * w, "the feature bitmap")?;
            for b in 0..64 {
                if word >> b & 1 == 1 {
                    bits.push((w * 64 + b) as u32);
                }
            }
        }
        c.bytes(attrs_at, attrs_len, "the attrs section")?;
        let mut attrs = Vec::new();
        for i in 0..attrs_len / attr_size {
            let at = attrs_at + i * attr_size;
            let attr = c.bytes(at, attr_size - 16, "an attr")?.to_vec();
            let ids_at = c.u64(at + attr_size - 16, "an attr's ids section")?;
            let ids_len = c.u64(at + attr_size - 8, "an attr's ids section")?;
            c.bytes(ids_at, ids_len, "an attr's ids")?;
            let ids = (0..ids_len / 8)
                .map(|k| c.u64(ids_at + 8 * k, "an id"))
                .collect::<Result<Vec<_>, _>>()?;
            attrs.push((attr, ids));
        }
        let data = c.bytes(data_at, data_len, "the data section")?.to_vec();
        let table = data_at + data_len;
        let mut features = Features::default();
        let mut event_names = Vec::new();
        for (k, &bit) in bits.iter().enumerate() {
            let entry = table + 16 * k as u64;
            let at = c.u64(entry, "the feature index")?;
            let len = c.u64(entry + 8, "the feature index")?;
            c.bytes(at, len, "a feature")?;
            let what = format!("feature {bit}");
            let string = || c.string(at, &what).map(|s| s.0);
            match bit {
                feature::HOSTNAME => features.hostname = Some(string()?),
                feature::OSRELEASE => features.osrelease = Some(string()?),
                feature::VERSION => features.version = Some(string()?),
                feature::ARCH => features.arch = Some(string()?),
                feature::CPUDESC => features.cpudesc = Some(string()?),
                feature::CPUID => features.cpuid = Some(string()?),
                feature::NRCPUS => {
                    features.nr_cpus = Some((c.u32(at, &what)?, c.u32(at + 4, &what)?));
                }
                feature::TOTAL_MEM => features.total_mem_kb = Some(c.u64(at, &what)?),
                feature::CMDLINE => {
                    let n = c.u32(at, &what)?;
                    let mut p = at + 4;
                    let mut args = Vec::new();
                    for _ in 0..n.min(65_536) {
                        let (s, used) = c.string(p, &what)?;
                        args.push(s);
                        p += used;
                    }
                    features.cmdline = Some(args);
                }
                feature::EVENT_DESC => {
                    let n = c.u32(at, &what)?;
                    let size = u64::from(c.u32(at + 4, &what)?);
                    let mut p = at + 8;
                    for _ in 0..n.min(65_536) {
                        c.bytes(p, size, &what)?;
                        p += size;
                        let nr_ids = u64::from(c.u32(p, &what)?);
                        let (name, used) = c.string(p + 4, &what)?;
                        p += 4 + used;
                        c.bytes(p, 8 * nr_ids, &what)?;
                        let ids = (0..nr_ids)
                            .map(|k| c.u64(p + 8 * k, &what))
                            .collect::<Result<Vec<_>, _>>()?;
                        p += 8 * nr_ids;
                        event_names.push((name, ids));
                    }
                }
                feature::SAMPLE_TIME => {
                    features.sample_time = Some((c.u64(at, &what)?, c.u64(at + 8, &what)?));
                }
                feature::BRANCH_STACK => features.branch_stack = true,
                feature::BUILD_ID => {
                    let mut p = at;
                    while p + 36 <= at + len {
                        let size = u64::from(u16::from_ne_bytes(
                            c.bytes(p + 6, 2, &what)?.try_into().expect("2 bytes"),
                        ));
                        let size = if swapped {
                            size.swap_bytes() >> 48
                        } else {
                            size
                        };
                        if size < 36 || p + size > at + len {
                            return Err(ReadError(format!(
                                "a build id entry of feature {bit} at byte {p} has size {size}"
                            )));
                        }
                        let id = c.bytes(p + 12, 24, &what)?;
                        let n = usize::from(id[20]).min(20);
                        let name = c.bytes(p + 36, size - 36, &what)?;
                        let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
                        features.build_ids.push(BuildId {
                            path: String::from_utf8_lossy(&name[..end]).into_owned(),
                            id: id[..if n == 0 { 20 } else { n }].to_vec(),
                        });
                        p += size;
                    }
                }
                _ => {}
            }
        }
        Ok(PerfData {
            swapped,
            attrs,
            data,
            feature_bits: bits,
            features,
            event_names,
        })
    }
}
