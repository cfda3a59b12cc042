//! The raw kernel interface: `perf_event_open(2)`, its ioctls, `read(2)` of a counter group and
//! the mmapped user page.
//!
//! This module is the only place in perfbench that calls into the kernel or libc. Everything
//! above it works with the safe types defined here ([`EventFd`], [`MappedPage`]) and with
//! [`Errno`]. The attr layout itself comes from the `perf-event-open-sys` bindings (generated from
//! the current uapi headers, `PERF_ATTR_SIZE_VER9`); the layout tests at the bottom pin the sizes
//! and offsets perfbench relies on.
//!
//! See `perf_event_open(2)` for the semantics of every field.

use std::fmt;
use std::io;
use std::marker::PhantomData;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::ptr::NonNull;

pub use perf_event_open_sys::bindings as raw;
pub use raw::{perf_event_attr as Attr, perf_event_mmap_page as MmapPage};

/// `read_format` used for every counter group perfbench opens.
pub const GROUP_READ_FORMAT: u64 = (raw::PERF_FORMAT_GROUP
    | raw::PERF_FORMAT_ID
    | raw::PERF_FORMAT_TOTAL_TIME_ENABLED
    | raw::PERF_FORMAT_TOTAL_TIME_RUNNING) as u64;

/// Words before the per-member `{value, id}` pairs in a [`GROUP_READ_FORMAT`] read:
/// `nr`, `time_enabled`, `time_running`.
pub const GROUP_HEADER_WORDS: usize = 3;

/// An `errno` value with its symbolic name.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Errno(pub i32);

impl Errno {
    /// The calling thread's last error.
    ///
    /// ```
    /// use perfbench::sys::Errno;
    ///
    /// assert!(std::fs::File::open("/nonexistent/perfbench").is_err());
    /// assert_eq!(Errno::last(), Errno(libc::ENOENT));
    /// ```
    pub fn last() -> Errno {
        Errno(io::Error::last_os_error().raw_os_error().unwrap_or(0))
    }

    /// The symbolic name (`"ENOENT"`), or `"E?"` for values perfbench never expects.
    ///
    /// ```
    /// use perfbench::sys::Errno;
    ///
    /// assert_eq!(Errno(libc::EACCES).name(), "EACCES");
    /// assert_eq!(Errno(libc::EOPNOTSUPP).to_string(), "EOPNOTSUPP"); // `Display` is the name
    /// assert_eq!(format!("{:?}", Errno(libc::ENOENT)), "ENOENT(2)"); // `Debug` adds the number
    /// assert_eq!(Errno(4095).name(), "E?");
    /// ```
    pub fn name(self) -> &'static str {
        match self.0 {
            libc::EPERM => "EPERM",
            libc::ENOENT => "ENOENT",
            libc::ESRCH => "ESRCH",
            libc::EINTR => "EINTR",
            libc::EIO => "EIO",
            libc::E2BIG => "E2BIG",
            libc::EBADF => "EBADF",
            libc::EAGAIN => "EAGAIN",
            libc::ENOMEM => "ENOMEM",
            libc::EACCES => "EACCES",
            libc::EFAULT => "EFAULT",
            libc::EBUSY => "EBUSY",
            libc::ENODEV => "ENODEV",
            libc::EINVAL => "EINVAL",
            libc::EMFILE => "EMFILE",
            libc::ENFILE => "ENFILE",
            libc::ENOSPC => "ENOSPC",
            libc::ENOSYS => "ENOSYS",
            libc::EOVERFLOW => "EOVERFLOW",
            libc::EOPNOTSUPP => "EOPNOTSUPP",
            _ => "E?",
        }
    }

    /// The C library's description of the error (`No such file or directory`), without the
    /// ` (os error N)` that [`std::io::Error`] appends: messages name the errno already.
    ///
    /// ```
    /// use perfbench::sys::Errno;
    ///
    /// assert_eq!(Errno(libc::ENOENT).description(), "No such file or directory");
    /// ```
    pub fn description(self) -> String {
        let text = io::Error::from_raw_os_error(self.0).to_string();
        let suffix = format!(" (os error {})", self.0);
        match text.strip_suffix(&suffix) {
            Some(plain) => plain.to_owned(),
            None => text,
        }
    }
}

impl fmt::Debug for Errno {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({})", self.name(), self.0)
    }
}

impl fmt::Display for Errno {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.name())
    }
}

impl std::error::Error for Errno {}

/// A zeroed attr whose `size` is this build's `perf_event_attr` size.
///
/// ```
/// use perfbench::sys::{new_attr, Attr};
///
/// let attr = new_attr();
/// assert_eq!(attr.size as usize, std::mem::size_of::<Attr>());
/// assert_eq!((attr.type_, attr.config, attr.sample_type, attr.disabled()), (0, 0, 0, 0));
/// ```
pub fn new_attr() -> Attr {
    Attr {
        size: std::mem::size_of::<Attr>() as u32,
        ..Attr::default()
    }
}

/// An open perf event file descriptor. Closed on drop.
#[derive(Debug)]
pub struct EventFd(OwnedFd);

/// Whether an ioctl applies to the event alone or to its whole group (`PERF_IOC_FLAG_GROUP`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Only this event.
    Event,
    /// The event and every member of its group (call on the leader).
    Group,
}

impl Scope {
    fn flag(self) -> u32 {
        match self {
            Scope::Event => 0,
            Scope::Group => raw::PERF_IOC_FLAG_GROUP,
        }
    }
}

/// How an `E2BIG` from `perf_event_open` was handled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SizeMismatch {
    /// The size perfbench passed.
    pub ours: u32,
    /// The size the kernel wrote back (the largest it understands).
    pub kernel: u32,
}

/// Why `perf_event_open` failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenFailure {
    /// The errno of the last attempt.
    pub errno: Errno,
    /// Set when the kernel answered `E2BIG` and the attr could not be shrunk to its size
    /// (a field the older kernel does not know is in use).
    pub size_mismatch: Option<SizeMismatch>,
}

impl EventFd {
    /// `perf_event_open(attr, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC)`.
    ///
    /// `EINTR` is retried. On `E2BIG` the kernel writes the attr size it supports back into
    /// `attr.size`; when every byte of the attr past that size is zero the call is retried with
    /// the kernel's size (an older kernel then sees exactly the struct it knows), otherwise the
    /// failure carries both sizes so the caller can explain which field the kernel lacks.
    ///
    /// Counting this thread's page faults (a software event: no PMU needed):
    ///
    /// ```
    /// use perfbench::sys::{new_attr, raw, AnonMapping, EventFd, Scope};
    ///
    /// let mut attr = new_attr();
    /// attr.type_ = raw::PERF_TYPE_SOFTWARE;
    /// attr.config = raw::PERF_COUNT_SW_PAGE_FAULTS as u64;
    /// attr.set_disabled(1);
    /// attr.set_exclude_kernel(1); // user space only: allowed at perf_event_paranoid 2
    /// attr.set_exclude_hv(1);
    /// // This thread (pid 0), on any CPU (-1), alone (no group leader).
    /// let faults = EventFd::open(&mut attr, 0, -1, None).expect("software events open");
    ///
    /// let mut pages = AnonMapping::new(8)?;
    /// faults.enable(Scope::Event)?;
    /// pages.touch_every_page();
    /// faults.disable(Scope::Event)?;
    /// let mut count = [0u64; 1]; // read_format 0: the value alone
    /// assert_eq!(faults.read_words(&mut count)?, 8);
    /// assert!(count[0] >= 8, "one fault per fresh page (and any for code run the first time)");
    ///
    /// // A software event the kernel does not have: the kernel's errno, and the attr is unchanged.
    /// let mut bogus = new_attr();
    /// bogus.type_ = raw::PERF_TYPE_SOFTWARE;
    /// bogus.config = 1_000;
    /// bogus.set_exclude_kernel(1);
    /// let failure = EventFd::open(&mut bogus, 0, -1, None).unwrap_err();
    /// assert_eq!((failure.errno.name(), failure.size_mismatch), ("ENOENT", None));
    /// assert_eq!(bogus.size, new_attr().size);
    /// # Ok::<(), perfbench::sys::Errno>(())
    /// ```
    pub fn open(
        attr: &mut Attr,
        pid: libc::pid_t,
        cpu: i32,
        group: Option<&EventFd>,
    ) -> Result<EventFd, OpenFailure> {
        let group_fd = group.map_or(-1, |g| g.as_raw_fd());
        let ours = attr.size;
        loop {
            // SAFETY: `attr` is a valid, exclusively borrowed `perf_event_attr` whose `size`
            // field never exceeds `size_of::<Attr>()` (it starts there and only shrinks), so the
            // kernel reads and (on E2BIG) writes within the struct.
            let fd = unsafe {
                perf_event_open_sys::perf_event_open(
                    attr,
                    pid,
                    cpu,
                    group_fd,
                    raw::PERF_FLAG_FD_CLOEXEC as libc::c_ulong,
                )
            };
            if fd >= 0 {
                // SAFETY: the kernel just returned this descriptor and nothing else owns it.
                return Ok(EventFd(unsafe { OwnedFd::from_raw_fd(fd) }));
            }
            let errno = Errno::last();
            match errno.0 {
                libc::EINTR => continue,
                libc::E2BIG => {
                    let kernel = attr.size;
                    if kernel != 0 && kernel < attr.size_of_struct() && attr.tail_is_zero(kernel) {
                        attr.size = kernel;
                        continue;
                    }
                    attr.size = ours;
                    return Err(OpenFailure {
                        errno,
                        size_mismatch: Some(SizeMismatch { ours, kernel }),
                    });
                }
                _ => {
                    attr.size = ours;
                    return Err(OpenFailure {
                        errno,
                        size_mismatch: None,
                    });
                }
            }
        }
    }

    /// `PERF_EVENT_IOC_ENABLE`.
    ///
    /// ```
    /// use perfbench::sys::{new_attr, raw, AnonMapping, EventFd, Scope};
    ///
    /// # let mut attr = new_attr();
    /// # attr.type_ = raw::PERF_TYPE_SOFTWARE;
    /// # attr.config = raw::PERF_COUNT_SW_PAGE_FAULTS as u64;
    /// # attr.set_disabled(1);
    /// # attr.set_exclude_kernel(1);
    /// # attr.set_exclude_hv(1);
    /// # let faults = EventFd::open(&mut attr, 0, -1, None).expect("software events open everywhere");
    /// let mut before = AnonMapping::new(4)?;
    /// before.touch_every_page(); // opened disabled: not counted
    /// faults.enable(Scope::Event)?;
    /// let mut during = AnonMapping::new(4)?;
    /// during.touch_every_page();
    /// faults.disable(Scope::Event)?;
    /// let mut count = [0u64];
    /// faults.read_words(&mut count)?;
    /// assert!(count[0] >= 4);
    /// # Ok::<(), perfbench::sys::Errno>(())
    /// ```
    pub fn enable(&self, scope: Scope) -> Result<(), Errno> {
        // SAFETY: a plain ioctl on a descriptor we own; the argument is an integer flag.
        check(unsafe { perf_event_open_sys::ioctls::ENABLE(self.as_raw_fd(), scope.flag()) })
    }

    /// `PERF_EVENT_IOC_DISABLE`.
    ///
    /// ```
    /// use perfbench::sys::{new_attr, raw, AnonMapping, EventFd, Scope};
    ///
    /// # let mut attr = new_attr();
    /// # attr.type_ = raw::PERF_TYPE_SOFTWARE;
    /// # attr.config = raw::PERF_COUNT_SW_PAGE_FAULTS as u64;
    /// # attr.set_disabled(1);
    /// # attr.set_exclude_kernel(1);
    /// # attr.set_exclude_hv(1);
    /// # let faults = EventFd::open(&mut attr, 0, -1, None).expect("software events open everywhere");
    /// faults.enable(Scope::Event)?;
    /// let mut pages = AnonMapping::new(4)?;
    /// pages.touch_every_page();
    /// faults.disable(Scope::Event)?;
    /// let (mut first, mut second) = ([0u64], [0u64]);
    /// faults.read_words(&mut first)?;
    /// let mut after = AnonMapping::new(4)?;
    /// after.touch_every_page(); // disabled: the count stands still
    /// faults.read_words(&mut second)?;
    /// assert_eq!(first, second);
    /// # Ok::<(), perfbench::sys::Errno>(())
    /// ```
    pub fn disable(&self, scope: Scope) -> Result<(), Errno> {
        // SAFETY: as in `enable`.
        check(unsafe { perf_event_open_sys::ioctls::DISABLE(self.as_raw_fd(), scope.flag()) })
    }

    /// `PERF_EVENT_IOC_RESET`: zeroes the counts (not `time_enabled`/`time_running`).
    ///
    /// ```
    /// use perfbench::sys::{new_attr, raw, AnonMapping, EventFd, Scope};
    ///
    /// # let mut attr = new_attr();
    /// # attr.type_ = raw::PERF_TYPE_SOFTWARE;
    /// # attr.config = raw::PERF_COUNT_SW_PAGE_FAULTS as u64;
    /// # attr.set_disabled(1);
    /// # attr.set_exclude_kernel(1);
    /// # attr.set_exclude_hv(1);
    /// # let faults = EventFd::open(&mut attr, 0, -1, None).expect("software events open everywhere");
    /// faults.enable(Scope::Event)?;
    /// AnonMapping::new(4)?.touch_every_page();
    /// faults.disable(Scope::Event)?;
    /// let mut count = [0u64];
    /// faults.read_words(&mut count)?;
    /// assert!(count[0] >= 4);
    /// faults.reset(Scope::Event)?;
    /// faults.read_words(&mut count)?;
    /// assert_eq!(count[0], 0);
    /// # Ok::<(), perfbench::sys::Errno>(())
    /// ```
    pub fn reset(&self, scope: Scope) -> Result<(), Errno> {
        // SAFETY: as in `enable`.
        check(unsafe { perf_event_open_sys::ioctls::RESET(self.as_raw_fd(), scope.flag()) })
    }

    /// `PERF_EVENT_IOC_ID`: the kernel's id of this event, as reported by `PERF_FORMAT_ID`.
    ///
    /// A group of two software events read at once: each value comes with its event's id.
    ///
    /// ```
    /// use perfbench::sys::{new_attr, raw, EventFd, Scope, GROUP_HEADER_WORDS, GROUP_READ_FORMAT};
    ///
    /// let software = |config: u32| {
    ///     let mut attr = new_attr();
    ///     attr.type_ = raw::PERF_TYPE_SOFTWARE;
    ///     attr.config = config.into();
    ///     attr.set_exclude_kernel(1);
    ///     attr.set_exclude_hv(1);
    ///     attr.read_format = GROUP_READ_FORMAT;
    ///     attr
    /// };
    /// let mut leader_attr = software(raw::PERF_COUNT_SW_TASK_CLOCK);
    /// leader_attr.set_disabled(1); // the group starts and stops with its leader
    /// let leader = EventFd::open(&mut leader_attr, 0, -1, None).expect("task-clock opens");
    /// let mut member_attr = software(raw::PERF_COUNT_SW_PAGE_FAULTS);
    /// let member = EventFd::open(&mut member_attr, 0, -1, Some(&leader)).expect("faults open");
    /// assert_ne!(leader.id()?, member.id()?);
    ///
    /// leader.enable(Scope::Group)?;
    /// std::hint::black_box((0..100_000u64).sum::<u64>());
    /// leader.disable(Scope::Group)?;
    /// // nr, time_enabled, time_running, then {value, id} per member, leader first.
    /// let mut buf = [0u64; GROUP_HEADER_WORDS + 2 * 2];
    /// assert_eq!(leader.read_words(&mut buf)?, buf.len() * 8);
    /// assert_eq!(buf[0], 2);
    /// assert_eq!((buf[4], buf[6]), (leader.id()?, member.id()?));
    /// assert!(buf[3] > 0, "task-clock advanced");
    /// # Ok::<(), perfbench::sys::Errno>(())
    /// ```
    pub fn id(&self) -> Result<u64, Errno> {
        let mut id = 0u64;
        // SAFETY: the kernel writes one u64 through the pointer, which points at `id`.
        check(unsafe { perf_event_open_sys::ioctls::ID(self.as_raw_fd(), &mut id) })?;
        Ok(id)
    }

    /// `read(2)` into `buf`, retrying `EINTR`. Returns the number of *bytes* read; 0 means
    /// end-of-file, which the kernel reports for a pinned event in error state.
    ///
    /// ```
    /// use perfbench::sys::{new_attr, raw, EventFd, Scope, GROUP_READ_FORMAT};
    ///
    /// let mut attr = new_attr();
    /// attr.type_ = raw::PERF_TYPE_SOFTWARE;
    /// attr.config = raw::PERF_COUNT_SW_TASK_CLOCK as u64;
    /// attr.set_exclude_kernel(1);
    /// attr.set_exclude_hv(1);
    /// attr.read_format = GROUP_READ_FORMAT;
    /// let clock = EventFd::open(&mut attr, 0, -1, None).expect("task-clock opens everywhere");
    /// std::hint::black_box((0..100_000u64).sum::<u64>());
    /// // A group of one: nr, time_enabled, time_running, value, id.
    /// let mut words = [0u64; 5];
    /// let bytes = clock.read_words(&mut words)?;
    /// assert_eq!(bytes, 5 * 8);
    /// let [nr, enabled, running, ns, id] = words;
    /// assert_eq!((nr, id), (1, clock.id()?));
    /// assert!(running <= enabled && ns > 0);
    /// // A buffer too small for the whole read is refused.
    /// assert_eq!(clock.read_words(&mut [0u64; 2]).unwrap_err().name(), "ENOSPC");
    /// # Ok::<(), perfbench::sys::Errno>(())
    /// ```
    #[inline]
    pub fn read_words(&self, buf: &mut [u64]) -> Result<usize, Errno> {
        loop {
            // SAFETY: `buf` is a valid, writable buffer of exactly the length passed.
            let n = unsafe {
                libc::read(
                    self.as_raw_fd(),
                    buf.as_mut_ptr().cast(),
                    std::mem::size_of_val(buf),
                )
            };
            if n >= 0 {
                return Ok(n as usize);
            }
            let errno = Errno::last();
            if errno.0 != libc::EINTR {
                return Err(errno);
            }
        }
    }

    /// Maps the event's first page (`struct perf_event_mmap_page`) read-only.
    ///
    /// A software event's page: readable, but with no hardware counter behind it (`index` 0), so
    /// its count is read with [`EventFd::read_words`]. A consistent snapshot of several fields is
    /// taken under the seqlock in [`MappedPage::lock`]:
    ///
    /// ```
    /// use perfbench::sys::{cap, new_attr, raw, EventFd, Scope};
    ///
    /// let mut attr = new_attr();
    /// attr.type_ = raw::PERF_TYPE_SOFTWARE;
    /// attr.config = raw::PERF_COUNT_SW_TASK_CLOCK as u64;
    /// attr.set_exclude_kernel(1);
    /// attr.set_exclude_hv(1);
    /// let clock = EventFd::open(&mut attr, 0, -1, None).expect("task-clock opens everywhere");
    /// let page = clock.map_user_page()?;
    /// std::hint::black_box((0..100_000u64).sum::<u64>());
    ///
    /// let (index, enabled, running) = loop {
    ///     let seq = page.lock();
    ///     let fields = (page.index(), page.time_enabled(), page.time_running());
    ///     if seq % 2 == 0 && page.lock() == seq {
    ///         break fields;
    ///     }
    /// };
    /// assert_eq!(index, 0);
    /// assert!(running <= enabled);
    /// // Every kernel that maps the page says that bit 0 of the capabilities is obsolete.
    /// assert_ne!(page.capabilities() & cap::BIT0_IS_DEPRECATED, 0);
    /// # Ok::<(), perfbench::sys::Errno>(())
    /// ```
    pub fn map_user_page(&self) -> Result<MappedPage, Errno> {
        let len = page_size();
        // Offset 0, one page: the documented way to obtain an event's user page.
        let ptr = map(len, libc::PROT_READ, libc::MAP_SHARED, self.as_raw_fd())?;
        Ok(MappedPage {
            ptr: ptr.cast::<MmapPage>(),
            len,
        })
    }
}

impl EventFd {
    /// Maps the event's sampling ring buffer: the user page and `data_pages` pages of data
    /// (`data_pages` must be a power of two), read-write so the reader can publish
    /// `data_tail`.
    ///
    /// Sampling this thread's CPU time every 100 µs into a one-page ring:
    ///
    /// ```
    /// use perfbench::sys::{new_attr, page_size, raw, EventFd, Scope};
    /// use std::time::{Duration, Instant};
    ///
    /// let mut attr = new_attr();
    /// attr.type_ = raw::PERF_TYPE_SOFTWARE;
    /// attr.config = raw::PERF_COUNT_SW_CPU_CLOCK as u64;
    /// attr.__bindgen_anon_1.sample_period = 100_000; // ns of CPU time
    /// attr.sample_type = raw::PERF_SAMPLE_IP as u64;
    /// attr.set_disabled(1);
    /// attr.set_exclude_kernel(1);
    /// attr.set_exclude_hv(1);
    /// let clock = EventFd::open(&mut attr, 0, -1, None).expect("cpu-clock sampling opens");
    /// assert_eq!(clock.map_ring(3).unwrap_err().name(), "EINVAL"); // not a power of two
    /// let ring = clock.map_ring(1)?;
    /// assert_eq!(ring.data_len(), page_size());
    /// assert_eq!((ring.head(), ring.tail()), (0, 0));
    ///
    /// clock.enable(Scope::Event)?;
    /// let deadline = Instant::now() + Duration::from_secs(30);
    /// while ring.head() == 0 && Instant::now() < deadline {
    ///     std::hint::black_box((0..10_000u64).sum::<u64>());
    /// }
    /// clock.disable(Scope::Event)?;
    /// let head = ring.head();
    /// assert!(head > 0, "no sample in 30 s");
    /// // The first record: a PERF_RECORD_SAMPLE of header + ip (or a THROTTLE/LOST notice).
    /// let mut header = [0u8; 8];
    /// ring.copy_out(ring.tail(), &mut header);
    /// let size = u16::from_ne_bytes([header[6], header[7]]);
    /// assert!(size >= 8 && size % 8 == 0 && u64::from(size) <= head);
    /// ring.set_tail(head); // done with everything written so far
    /// # Ok::<(), perfbench::sys::Errno>(())
    /// ```
    pub fn map_ring(&self, data_pages: usize) -> Result<MappedRing, Errno> {
        if !data_pages.is_power_of_two() {
            return Err(Errno(libc::EINVAL));
        }
        let page = page_size();
        let len = (1 + data_pages) * page;
        // A shared read-write mapping of 1 + 2^n pages at offset 0 of a sampling event fd is
        // the documented ring buffer.
        let rw = libc::PROT_READ | libc::PROT_WRITE;
        let ptr = map(len, rw, libc::MAP_SHARED, self.as_raw_fd())?;
        Ok(MappedRing {
            ptr,
            len,
            data_start: page,
            data_len: data_pages * page,
        })
    }
}

/// An event's sampling ring buffer (`perf_event_mmap_page` then the data pages). Unmapped on
/// drop.
///
/// The kernel writes records into the data pages and advances `data_head`; the reader copies
/// them out and advances `data_tail`. [`MappedRing::head`] is an acquire load (records before
/// the head are fully written) and [`MappedRing::set_tail`] a release store (the reader is done
/// with what lies before the tail), the protocol of `perf_event_open(2)`.
#[derive(Debug)]
pub struct MappedRing {
    ptr: NonNull<u8>,
    len: usize,
    data_start: usize,
    data_len: usize,
}

// SAFETY: the mapping is owned by this value; the kernel is the only other party and
// synchronises through `data_head`/`data_tail` as the accessors do.
unsafe impl Send for MappedRing {}

impl MappedRing {
    /// A ring buffer in anonymous memory, laid out as the kernel's (a header page, then
    /// `data_pages` pages, a power of two), for tests and benchmarks of the reader: the
    /// kernel's side is played by [`MappedRing::copy_in`] and [`MappedRing::set_head`].
    ///
    /// ```
    /// use perfbench::sys::{page_size, MappedRing};
    ///
    /// let ring = MappedRing::anonymous(2)?;
    /// assert_eq!(ring.data_len(), 2 * page_size());
    /// assert_eq!((ring.head(), ring.tail()), (0, 0));
    /// // The kernel's side: a record is written, then published.
    /// ring.copy_in(0, b"record 1");
    /// ring.set_head(8);
    /// // The reader's side: copied out, then released.
    /// let mut out = [0u8; 8];
    /// ring.copy_out(ring.tail(), &mut out);
    /// ring.set_tail(8);
    /// assert_eq!((&out, ring.head(), ring.tail()), (b"record 1", 8, 8));
    /// assert_eq!(MappedRing::anonymous(3).unwrap_err().name(), "EINVAL");
    /// # Ok::<(), perfbench::sys::Errno>(())
    /// ```
    pub fn anonymous(data_pages: usize) -> Result<MappedRing, Errno> {
        if !data_pages.is_power_of_two() {
            return Err(Errno(libc::EINVAL));
        }
        let page = page_size();
        let len = (1 + data_pages) * page;
        let ptr = map_anonymous(len)?;
        Ok(MappedRing {
            ptr,
            len,
            data_start: page,
            data_len: data_pages * page,
        })
    }

    /// The kernel's side of an [`anonymous`](MappedRing::anonymous) ring: writes `bytes` at
    /// the (unwrapped) position `at` of the data area, wrapping around its end. `bytes` must
    /// not be longer than the data area.
    ///
    /// Positions are not wrapped: a write at the end of the data area continues at its start.
    ///
    /// ```
    /// use perfbench::sys::MappedRing;
    ///
    /// let ring = MappedRing::anonymous(1)?;
    /// let len = ring.data_len() as u64;
    /// ring.copy_in(3 * len - 4, b"wrapping"); // the third lap: last 4 bytes, then first 4
    /// let (mut end, mut start) = ([0u8; 4], [0u8; 4]);
    /// ring.copy_out(len - 4, &mut end);
    /// ring.copy_out(0, &mut start);
    /// assert_eq!((&end, &start), (b"wrap", b"ping"));
    /// # Ok::<(), perfbench::sys::Errno>(())
    /// ```
    pub fn copy_in(&self, at: u64, bytes: &[u8]) {
        let n = bytes.len().min(self.data_len);
        let start = (at % self.data_len as u64) as usize;
        let first = n.min(self.data_len - start);
        // SAFETY: both ranges lie inside the data pages of the live mapping, as in
        // `copy_out`; only a simulated ring is written this way (the caller plays the kernel).
        unsafe {
            let data = self.ptr.as_ptr().add(self.data_start);
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), data.add(start), first);
            std::ptr::copy_nonoverlapping(bytes.as_ptr().add(first), data, n - first);
        }
    }

    /// The kernel's side of an [`anonymous`](MappedRing::anonymous) ring: publishes
    /// `data_head` (release: the records before it are written).
    ///
    /// ```
    /// use perfbench::sys::MappedRing;
    ///
    /// let ring = MappedRing::anonymous(1)?;
    /// ring.copy_in(0, &[7u8; 24]);
    /// ring.set_head(24);
    /// assert_eq!(ring.head() - ring.tail(), 24); // bytes ready for the reader
    /// # Ok::<(), perfbench::sys::Errno>(())
    /// ```
    pub fn set_head(&self, head: u64) {
        // SAFETY: as for `head`.
        let h = unsafe {
            &*(std::ptr::addr_of_mut!((*self.header()).data_head)
                as *const std::sync::atomic::AtomicU64)
        };
        h.store(head, std::sync::atomic::Ordering::Release);
    }

    fn header(&self) -> *mut MmapPage {
        self.ptr.as_ptr().cast()
    }

    /// The data area's size in bytes (a power of two).
    ///
    /// See [`MappedRing::anonymous`] for an example.
    pub fn data_len(&self) -> usize {
        self.data_len
    }

    /// `data_head`: how far the kernel has written (bytes since the start, not wrapped).
    ///
    /// See [`MappedRing::set_head`] for an example.
    pub fn head(&self) -> u64 {
        // SAFETY: `data_head` is an aligned u64 inside the first page of a live mapping; the
        // kernel updates it concurrently, so it is read as an atomic with acquire ordering.
        let head = unsafe {
            &*(std::ptr::addr_of_mut!((*self.header()).data_head)
                as *const std::sync::atomic::AtomicU64)
        };
        head.load(std::sync::atomic::Ordering::Acquire)
    }

    /// `data_tail`: how far the reader has consumed.
    ///
    /// See [`MappedRing::set_tail`] for an example.
    pub fn tail(&self) -> u64 {
        // SAFETY: as for `head`; only this value writes `data_tail`.
        let tail = unsafe {
            &*(std::ptr::addr_of_mut!((*self.header()).data_tail)
                as *const std::sync::atomic::AtomicU64)
        };
        tail.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Publishes `data_tail`: everything before `tail` has been copied out.
    ///
    /// ```
    /// use perfbench::sys::MappedRing;
    ///
    /// let ring = MappedRing::anonymous(1)?;
    /// ring.copy_in(0, &[1u8; 32]);
    /// ring.set_head(32);
    /// ring.set_tail(16); // the first 16 bytes have been read: their space is free again
    /// assert_eq!((ring.tail(), ring.head() - ring.tail()), (16, 16));
    /// # Ok::<(), perfbench::sys::Errno>(())
    /// ```
    pub fn set_tail(&self, tail: u64) {
        // SAFETY: as for `head`; the release store orders the reader's copies before it.
        let t = unsafe {
            &*(std::ptr::addr_of_mut!((*self.header()).data_tail)
                as *const std::sync::atomic::AtomicU64)
        };
        t.store(tail, std::sync::atomic::Ordering::Release);
    }

    /// Copies `out.len()` bytes starting at the (unwrapped) position `at` of the data area,
    /// wrapping around its end. `out` must not be longer than the data area.
    ///
    /// ```
    /// use perfbench::sys::MappedRing;
    ///
    /// let ring = MappedRing::anonymous(1)?;
    /// let len = ring.data_len() as u64;
    /// ring.copy_in(len - 3, b"abcdef");
    /// ring.set_head(len + 3);
    /// let mut out = [0u8; 6];
    /// ring.copy_out(len - 3, &mut out); // the same unwrapped position: the bytes come out whole
    /// assert_eq!(&out, b"abcdef");
    /// ring.copy_out(2 * len - 3, &mut out); // a position a whole lap later is the same place
    /// assert_eq!(&out, b"abcdef");
    /// # Ok::<(), perfbench::sys::Errno>(())
    /// ```
    pub fn copy_out(&self, at: u64, out: &mut [u8]) {
        let n = out.len().min(self.data_len);
        let start = (at % self.data_len as u64) as usize;
        let first = n.min(self.data_len - start);
        // SAFETY: `data_start + start .. + first` and `data_start .. + (n - first)` lie inside
        // the data pages of the live mapping (start < data_len, first <= data_len - start,
        // n - first <= data_len); the bytes between tail and head are not written by the
        // kernel until the tail moves past them.
        unsafe {
            let data = self.ptr.as_ptr().add(self.data_start);
            std::ptr::copy_nonoverlapping(data.add(start), out.as_mut_ptr(), first);
            std::ptr::copy_nonoverlapping(data, out.as_mut_ptr().add(first), n - first);
        }
    }
}

impl Drop for MappedRing {
    fn drop(&mut self) {
        // SAFETY: `ptr`/`len` describe a mapping this value created and nobody else unmaps.
        unsafe {
            libc::munmap(self.ptr.as_ptr().cast(), self.len);
        }
    }
}

impl AsRawFd for EventFd {
    fn as_raw_fd(&self) -> RawFd {
        self.0.as_raw_fd()
    }
}

fn check(ret: libc::c_int) -> Result<(), Errno> {
    if ret == -1 {
        Err(Errno::last())
    } else {
        Ok(())
    }
}

/// `mmap(NULL, len, prot, flags, fd, 0)`: the start of the new mapping (which the caller owns
/// and unmaps).
fn map(len: usize, prot: i32, flags: i32, fd: RawFd) -> Result<NonNull<u8>, Errno> {
    // SAFETY: no address hint and offset 0: mmap places a fresh mapping and has no other
    // precondition; a file mapping's validity for `fd` is the kernel's to check, and the
    // result is checked before use.
    let ptr = unsafe { libc::mmap(std::ptr::null_mut(), len, prot, flags, fd, 0) };
    if ptr == libc::MAP_FAILED {
        return Err(Errno::last());
    }
    NonNull::new(ptr.cast::<u8>()).ok_or(Errno(libc::EFAULT))
}

/// `len` fresh private anonymous read-write bytes (not yet faulted in).
fn map_anonymous(len: usize) -> Result<NonNull<u8>, Errno> {
    let rw = libc::PROT_READ | libc::PROT_WRITE;
    map(len, rw, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1)
}

/// The system page size.
///
/// ```
/// use perfbench::sys::page_size;
///
/// let page = page_size();
/// assert!(page.is_power_of_two() && page >= 4096);
/// ```
pub fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if n > 0 {
        n as usize
    } else {
        4096
    }
}

trait AttrExt {
    fn size_of_struct(&self) -> u32;
    fn tail_is_zero(&self, from: u32) -> bool;
}

impl AttrExt for Attr {
    fn size_of_struct(&self) -> u32 {
        std::mem::size_of::<Attr>() as u32
    }

    fn tail_is_zero(&self, from: u32) -> bool {
        // SAFETY: `Attr` is a plain-old-data `repr(C)` struct without padding holes that could
        // be uninitialised (every instance starts from `Attr::default()`, which zeroes it), so
        // viewing it as bytes is sound.
        let bytes = unsafe {
            std::slice::from_raw_parts((self as *const Attr).cast::<u8>(), size_of::<Attr>())
        };
        bytes
            .get(from as usize..)
            .is_some_and(|t| t.iter().all(|&b| b == 0))
    }
}

/// A read-only mapping of an event's user page (`struct perf_event_mmap_page`). Unmapped on drop.
///
/// The kernel updates the page concurrently; every accessor is a volatile load, and
/// consistency across fields comes from the seqlock in `lock` (see `counters::userpage`).
#[derive(Debug)]
pub struct MappedPage {
    ptr: NonNull<MmapPage>,
    len: usize,
}

// SAFETY: the mapping is read-only and owned by this value; reading it from another thread is
// as sound as reading it from this one (the kernel is the only writer).
unsafe impl Send for MappedPage {}

/// A copyable handle to a [`MappedPage`], borrowed from it: the same volatile field loads,
/// through an address the compiler holds in a register.
///
/// The fast path takes one per member per read ([`MappedPage::page_ref`]): its seqlock's
/// compiler fences make the compiler assume that any memory may have changed, including the
/// `MappedPage` values themselves (they sit in a heap slice), so loads through `&MappedPage`
/// would reload the page's address after every fence. A `PageRef` is a value, not memory.
#[derive(Clone, Copy, Debug)]
pub struct PageRef<'a> {
    ptr: NonNull<MmapPage>,
    page: PhantomData<&'a MappedPage>,
}

macro_rules! page_field {
    ($(#[$doc:meta])* $name:ident: $ty:ty) => {
        $(#[$doc])*
        #[inline(always)]
        pub fn $name(&self) -> $ty {
            self.page_ref().$name()
        }
    };
}

macro_rules! page_ref_field {
    ($($name:ident: $ty:ty),* $(,)?) => {
        $(
            #[doc = concat!("[`MappedPage::", stringify!($name), "`].")]
            #[inline(always)]
            pub fn $name(self) -> $ty {
                // SAFETY: `ptr` points at a live, page-sized, readable mapping for as long as
                // the `MappedPage` this handle borrows exists (`'a`), and the field lies inside
                // the first page.
                unsafe { std::ptr::addr_of!((*self.ptr.as_ptr()).$name).read_volatile() }
            }
        )*
    };
}

impl PageRef<'_> {
    page_ref_field!(
        lock: u32,
        index: u32,
        offset: i64,
        time_enabled: u64,
        time_running: u64,
        pmc_width: u16,
        time_shift: u16,
        time_mult: u32,
        time_offset: u64,
        time_cycles: u64,
        time_mask: u64,
    );

    /// [`MappedPage::capabilities`].
    ///
    /// ```
    /// use perfbench::sys::{cap, new_attr, raw, EventFd};
    ///
    /// let mut attr = new_attr();
    /// attr.type_ = raw::PERF_TYPE_SOFTWARE;
    /// attr.config = raw::PERF_COUNT_SW_TASK_CLOCK as u64;
    /// attr.set_exclude_kernel(1);
    /// attr.set_exclude_hv(1);
    /// let clock = EventFd::open(&mut attr, 0, -1, None).expect("task-clock opens everywhere");
    /// let page = clock.map_user_page()?;
    /// let handle = page.page_ref(); // Copy: the address stays in a register across fences
    /// assert_eq!(handle.capabilities(), page.capabilities());
    /// assert_ne!(handle.capabilities() & cap::BIT0_IS_DEPRECATED, 0);
    /// # Ok::<(), perfbench::sys::Errno>(())
    /// ```
    #[inline(always)]
    pub fn capabilities(self) -> u64 {
        // SAFETY: as for the other fields; the union's `capabilities` member covers all bits.
        unsafe {
            std::ptr::addr_of!((*self.ptr.as_ptr()).__bindgen_anon_1.capabilities).read_volatile()
        }
    }
}

impl MappedPage {
    page_field!(
        /// The seqlock: odd or changed means an update raced with the reader.
        ///
        /// See [`EventFd::map_user_page`] for an example.
        lock: u32
    );
    page_field!(
        /// Hardware counter index + 1, or 0 when the fast path is not allowed right now.
        ///
        /// See [`EventFd::map_user_page`] for an example.
        index: u32
    );
    page_field!(
        /// Value to add to the (sign-extended) hardware counter.
        ///
        /// See [`EventFd::map_user_page`] for an example.
        offset: i64
    );
    page_field!(
        /// `time_enabled` at the last kernel update.
        ///
        /// See [`EventFd::map_user_page`] for an example.
        time_enabled: u64
    );
    page_field!(
        /// `time_running` at the last kernel update.
        ///
        /// See [`EventFd::map_user_page`] for an example.
        time_running: u64
    );
    page_field!(
        /// Width in bits of the hardware counter.
        ///
        /// See [`EventFd::map_user_page`] for an example.
        pmc_width: u16
    );
    page_field!(
        /// Shift of the cycles-to-time conversion.
        ///
        /// See [`EventFd::map_user_page`] for an example.
        time_shift: u16
    );
    page_field!(
        /// Multiplier of the cycles-to-time conversion.
        ///
        /// See [`EventFd::map_user_page`] for an example.
        time_mult: u32
    );
    page_field!(
        /// Offset of the cycles-to-time conversion.
        ///
        /// See [`EventFd::map_user_page`] for an example.
        time_offset: u64
    );
    page_field!(
        /// Base for `cap_user_time_short`.
        ///
        /// See [`EventFd::map_user_page`] for an example.
        time_cycles: u64
    );
    page_field!(
        /// Mask for `cap_user_time_short`.
        ///
        /// See [`EventFd::map_user_page`] for an example.
        time_mask: u64
    );

    /// The raw capabilities word (`cap_bit0`, `cap_bit0_is_deprecated`, `cap_user_rdpmc`, ...).
    ///
    /// See [`EventFd::map_user_page`] for an example.
    #[inline(always)]
    pub fn capabilities(&self) -> u64 {
        self.page_ref().capabilities()
    }

    /// A copyable handle to this page (see [`PageRef`]).
    ///
    /// ```
    /// use perfbench::sys::{cap, new_attr, raw, EventFd};
    ///
    /// let mut attr = new_attr();
    /// attr.type_ = raw::PERF_TYPE_SOFTWARE;
    /// attr.config = raw::PERF_COUNT_SW_TASK_CLOCK as u64;
    /// attr.set_exclude_kernel(1);
    /// attr.set_exclude_hv(1);
    /// let clock = EventFd::open(&mut attr, 0, -1, None).expect("task-clock opens everywhere");
    /// let page = clock.map_user_page()?;
    /// let (a, b) = (page.page_ref(), page.page_ref());
    /// assert_eq!(a.index(), b.index()); // task-clock: 0, no hardware counter to read
    /// # Ok::<(), perfbench::sys::Errno>(())
    /// ```
    #[inline(always)]
    pub fn page_ref(&self) -> PageRef<'_> {
        PageRef {
            ptr: self.ptr,
            page: PhantomData,
        }
    }

    /// [`page_ref`](Self::page_ref) with a lifetime the caller picks: for a structure that
    /// keeps the handle beside the `MappedPage` it borrows (a borrow of a sibling field, which
    /// Rust cannot express).
    ///
    /// # Safety
    ///
    /// The handle must not be used after this `MappedPage` is dropped (or moved out of the
    /// structure that promises to keep it).
    #[inline]
    pub(crate) unsafe fn page_ref_unbounded<'a>(&self) -> PageRef<'a> {
        PageRef {
            ptr: self.ptr,
            page: PhantomData,
        }
    }
}

impl Drop for MappedPage {
    fn drop(&mut self) {
        // SAFETY: `ptr`/`len` describe a mapping this value created and nobody else unmaps.
        unsafe {
            libc::munmap(self.ptr.as_ptr().cast(), self.len);
        }
    }
}

/// Bits of the user page's `capabilities` word (uapi `perf_event_mmap_page`).
pub mod cap {
    /// Historic bit that meant both `user_rdpmc` and `user_time`; ignore when bit 1 is set.
    pub const BIT0: u64 = 1 << 0;
    /// Bit 0 must be ignored.
    pub const BIT0_IS_DEPRECATED: u64 = 1 << 1;
    /// User space may read the counter directly (`rdpmc`, `mrs`).
    pub const USER_RDPMC: u64 = 1 << 2;
    /// `time_shift`/`time_mult`/`time_offset` are valid.
    pub const USER_TIME: u64 = 1 << 3;
    /// `time_zero` is valid.
    pub const USER_TIME_ZERO: u64 = 1 << 4;
    /// `time_cycles`/`time_mask` are valid.
    pub const USER_TIME_SHORT: u64 = 1 << 5;
}

/// Reads a small text file (sysfs, procfs), trimmed. `None` when it does not exist or is
/// unreadable.
///
/// ```
/// use perfbench::sys::read_text;
///
/// # let dir = std::env::temp_dir().join(format!("perfbench-doc-read-text-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let path = dir.join("type");
/// std::fs::write(&path, "  4\n")?;
/// assert_eq!(read_text(&path).as_deref(), Some("4"));
/// assert_eq!(read_text(&dir.join("missing")), None);
/// assert_eq!(read_text(&dir), None); // a directory is unreadable as text
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn read_text(path: &std::path::Path) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_owned())
}

/// The current thread's kernel thread id.
///
/// ```
/// use perfbench::sys::gettid;
///
/// // The main thread's id is the process id; every other thread has its own.
/// assert_eq!(gettid() as u32, std::process::id());
/// let other = std::thread::spawn(gettid).join().unwrap();
/// assert_ne!(other, gettid());
/// ```
pub fn gettid() -> libc::pid_t {
    // SAFETY: gettid has no preconditions.
    unsafe { libc::gettid() }
}

/// The CPUs the calling thread may run on (`sched_getaffinity`), ascending.
///
/// ```
/// use perfbench::sys::thread_affinity;
///
/// let cpus = thread_affinity()?;
/// assert!(!cpus.is_empty());
/// assert!(cpus.windows(2).all(|w| w[0] < w[1]), "ascending, no repeats");
/// # Ok::<(), perfbench::sys::Errno>(())
/// ```
pub fn thread_affinity() -> Result<Vec<u32>, Errno> {
    // SAFETY: cpu_set_t is a plain bit array for which all zeroes is a valid (empty) value.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is a valid, writable cpu_set_t of the size passed; pid 0 is this thread.
    let rc =
        unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if rc != 0 {
        return Err(Errno::last());
    }
    Ok((0..libc::CPU_SETSIZE as u32)
        // SAFETY: `cpu` is below CPU_SETSIZE, the capacity of `set`.
        .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu as usize, &set) })
        .collect())
}

/// Restricts the calling thread to `cpus` (`sched_setaffinity`). CPUs at or beyond
/// `CPU_SETSIZE` (1024) are ignored; an empty set (after that) is `EINVAL`, as from the kernel.
///
/// ```
/// use perfbench::sys::{current_cpu, set_thread_affinity, thread_affinity};
///
/// let allowed = thread_affinity()?;
/// let last = *allowed.last().unwrap();
/// set_thread_affinity(&[last])?;
/// assert_eq!(thread_affinity()?, vec![last]);
/// assert_eq!(current_cpu(), Some(last)); // running there now
/// set_thread_affinity(&allowed)?; // and back
/// assert_eq!(thread_affinity()?, allowed);
/// // Nothing to run on: refused, and the affinity is unchanged.
/// assert_eq!(set_thread_affinity(&[]).unwrap_err().name(), "EINVAL");
/// assert_eq!(set_thread_affinity(&[5000]).unwrap_err().name(), "EINVAL");
/// assert_eq!(thread_affinity()?, allowed);
/// # Ok::<(), perfbench::sys::Errno>(())
/// ```
pub fn set_thread_affinity(cpus: &[u32]) -> Result<(), Errno> {
    // SAFETY: as in `thread_affinity`.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let mut any = false;
    for &cpu in cpus.iter().filter(|&&c| c < libc::CPU_SETSIZE as u32) {
        // SAFETY: `cpu` is below CPU_SETSIZE, the capacity of `set`.
        unsafe { libc::CPU_SET(cpu as usize, &mut set) };
        any = true;
    }
    if !any {
        return Err(Errno(libc::EINVAL));
    }
    // SAFETY: `set` is a valid cpu_set_t of the size passed; pid 0 is this thread.
    let rc = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    if rc != 0 {
        return Err(Errno::last());
    }
    Ok(())
}

/// The CPU the calling thread is running on (`sched_getcpu`), if the kernel says.
///
/// ```
/// use perfbench::sys::{current_cpu, thread_affinity};
///
/// let cpu = current_cpu().expect("Linux says");
/// assert!(thread_affinity()?.contains(&cpu));
/// # Ok::<(), perfbench::sys::Errno>(())
/// ```
pub fn current_cpu() -> Option<u32> {
    // SAFETY: sched_getcpu has no preconditions.
    let cpu = unsafe { libc::sched_getcpu() };
    u32::try_from(cpu).ok()
}

/// The width in columns of the terminal on standard error, if it is one (`TIOCGWINSZ`).
///
/// ```
/// use perfbench::sys::stderr_columns;
/// use std::io::IsTerminal;
///
/// match stderr_columns() {
///     Some(columns) => assert!(columns > 0 && std::io::stderr().is_terminal()),
///     // Not a terminal (redirected, or captured as under `cargo test`), or one that does not
///     // know its width.
///     None => {}
/// }
/// if !std::io::stderr().is_terminal() {
///     assert_eq!(stderr_columns(), None);
/// }
/// ```
pub fn stderr_columns() -> Option<u16> {
    let mut size = libc::winsize {
        ws_row: 0,
        ws_col: 0,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCGWINSZ writes one `winsize` through the pointer, which points to a live,
    // writable `winsize`; on a descriptor that is not a terminal it fails and writes nothing.
    let rc = unsafe { libc::ioctl(libc::STDERR_FILENO, libc::TIOCGWINSZ, &mut size) };
    (rc == 0 && size.ws_col > 0).then_some(size.ws_col)
}

/// Keeps standard output for the caller and points descriptor 1 at standard error: returns a
/// new descriptor (close-on-exec) for what standard output was. A paired run's worker speaks its
/// protocol on the returned file, so whatever a benchmark prints cannot corrupt it.
///
/// ```
/// use perfbench::sys::take_stdout;
/// use std::os::unix::fs::MetadataExt;
///
/// // What a descriptor refers to: (device, inode) of the file, pipe or terminal.
/// let file_of = |fd: u32| {
///     let m = std::fs::metadata(format!("/proc/self/fd/{fd}")).unwrap();
///     (m.dev(), m.ino())
/// };
/// let (stdout, stderr) = (file_of(1), file_of(2));
/// let protocol = take_stdout().expect("a descriptor to spare");
/// let kept = protocol.metadata().unwrap();
/// assert_eq!((kept.dev(), kept.ino()), stdout); // the caller keeps standard output
/// assert_eq!(file_of(1), stderr); // what the program prints now goes to standard error
/// ```
pub fn take_stdout() -> Result<std::fs::File, Errno> {
    use std::os::fd::FromRawFd;
    // SAFETY: F_DUPFD_CLOEXEC only creates a new descriptor; it touches no memory.
    let fd = unsafe { libc::fcntl(libc::STDOUT_FILENO, libc::F_DUPFD_CLOEXEC, 3) };
    if fd < 0 {
        return Err(Errno::last());
    }
    // SAFETY: `fd` was just created by fcntl and nothing else owns it.
    let file = unsafe { std::fs::File::from_raw_fd(fd) };
    // SAFETY: dup2 on two descriptors this process has open; it touches no memory.
    if unsafe { libc::dup2(libc::STDERR_FILENO, libc::STDOUT_FILENO) } < 0 {
        return Err(Errno::last());
    }
    Ok(file)
}

/// `flock(2)` with `LOCK_EX` on `file`: true when taken; when `wait` is false and another
/// open file description holds it, false at once (`LOCK_NB`). Held until `file` is closed.
pub fn flock(file: &std::fs::File, wait: bool) -> io::Result<bool> {
    let op = if wait {
        libc::LOCK_EX
    } else {
        libc::LOCK_EX | libc::LOCK_NB
    };
    loop {
        // SAFETY: flock only reads the descriptor, which `file` keeps open for the call.
        let rc = unsafe { libc::flock(file.as_raw_fd(), op) };
        if rc == 0 {
            return Ok(true);
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EINTR) => continue,
            Some(libc::EWOULDBLOCK) if !wait => return Ok(false),
            _ => return Err(e),
        }
    }
}

/// The effective user id.
///
/// ```
/// use perfbench::sys::{geteuid, read_text};
/// use std::path::Path;
///
/// // `Uid:` real, effective, saved, filesystem.
/// let status = read_text(Path::new("/proc/self/status")).unwrap();
/// let uids = status.lines().find_map(|l| l.strip_prefix("Uid:")).unwrap();
/// let effective: u32 = uids.split_whitespace().nth(1).unwrap().parse().unwrap();
/// assert_eq!(geteuid(), effective);
/// ```
pub fn geteuid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// `clock_gettime(CLOCK_MONOTONIC)` in nanoseconds: the `wall-time` counter's clock.
///
/// ```
/// use perfbench::sys::monotonic_ns;
///
/// let start = monotonic_ns();
/// std::thread::sleep(std::time::Duration::from_millis(2));
/// let elapsed = monotonic_ns() - start; // never goes backwards
/// assert!(elapsed >= 2_000_000, "{elapsed} ns");
/// ```
#[inline(always)]
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec to write into; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// `mmap` of `len` fresh anonymous bytes, for tests and benchmarks that count page faults.
/// Unmapped on drop.
#[derive(Debug)]
pub struct AnonMapping {
    ptr: NonNull<u8>,
    len: usize,
}

impl AnonMapping {
    /// Maps `pages` fresh private anonymous pages (not yet faulted in).
    ///
    /// ```
    /// use perfbench::sys::{new_attr, raw, AnonMapping, EventFd, Scope};
    ///
    /// # let mut attr = new_attr();
    /// # attr.type_ = raw::PERF_TYPE_SOFTWARE;
    /// # attr.config = raw::PERF_COUNT_SW_PAGE_FAULTS as u64;
    /// # attr.set_disabled(1);
    /// # attr.set_exclude_kernel(1);
    /// # attr.set_exclude_hv(1);
    /// # let faults = EventFd::open(&mut attr, 0, -1, None).expect("software events open everywhere");
    /// faults.enable(Scope::Event)?;
    /// let _pages = AnonMapping::new(64)?; // mapped, but not faulted in until touched
    /// faults.disable(Scope::Event)?;
    /// let mut count = [0u64];
    /// faults.read_words(&mut count)?;
    /// assert!(count[0] < 64);
    /// # Ok::<(), perfbench::sys::Errno>(())
    /// ```
    pub fn new(pages: usize) -> Result<AnonMapping, Errno> {
        let len = pages.max(1) * page_size();
        let ptr = map_anonymous(len)?;
        Ok(AnonMapping { ptr, len })
    }

    /// Writes one byte to each page, faulting every page in once.
    ///
    /// Exactly one page fault per page, once:
    ///
    /// ```
    /// use perfbench::sys::{new_attr, raw, AnonMapping, Errno, EventFd, Scope};
    ///
    /// # let mut attr = new_attr();
    /// # attr.type_ = raw::PERF_TYPE_SOFTWARE;
    /// # attr.config = raw::PERF_COUNT_SW_PAGE_FAULTS as u64;
    /// # attr.set_disabled(1);
    /// # attr.set_exclude_kernel(1);
    /// # attr.set_exclude_hv(1);
    /// # let faults = EventFd::open(&mut attr, 0, -1, None).expect("software events open everywhere");
    /// // This thread's page faults while `f` runs.
    /// let count = |f: &mut dyn FnMut()| -> Result<u64, Errno> {
    ///     faults.reset(Scope::Event)?;
    ///     faults.enable(Scope::Event)?;
    ///     f();
    ///     faults.disable(Scope::Event)?;
    ///     let mut n = [0u64];
    ///     faults.read_words(&mut n)?;
    ///     Ok(n[0])
    /// };
    /// let mut warm_up = AnonMapping::new(1)?;
    /// count(&mut || warm_up.touch_every_page())?; // runs the code once: its own pages are in
    /// let mut pages = AnonMapping::new(16)?;
    /// assert_eq!(count(&mut || pages.touch_every_page())?, 16);
    /// assert_eq!(count(&mut || pages.touch_every_page())?, 0); // already in
    /// # Ok::<(), perfbench::sys::Errno>(())
    /// ```
    pub fn touch_every_page(&mut self) {
        let step = page_size();
        let mut off = 0;
        while off < self.len {
            // SAFETY: `off < len`, inside the writable mapping this value owns.
            unsafe { self.ptr.as_ptr().add(off).write_volatile(1) };
            off += step;
        }
    }
}

impl Drop for AnonMapping {
    fn drop(&mut self) {
        // SAFETY: `ptr`/`len` describe a mapping this value created.
        unsafe {
            libc::munmap(self.ptr.as_ptr().cast(), self.len);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    #[test]
    fn a_thread_pinned_to_one_cpu_runs_there_and_can_be_unpinned() {
        let allowed = thread_affinity().unwrap();
        assert!(!allowed.is_empty());
        let last = *allowed.last().unwrap();
        set_thread_affinity(&[last]).unwrap();
        assert_eq!(thread_affinity().unwrap(), vec![last]);
        std::thread::yield_now();
        assert_eq!(current_cpu(), Some(last));
        set_thread_affinity(&allowed).unwrap();
        assert_eq!(thread_affinity().unwrap(), allowed);
        assert_eq!(set_thread_affinity(&[]), Err(Errno(libc::EINVAL)));
        assert_eq!(set_thread_affinity(&[5000]), Err(Errno(libc::EINVAL)));
    }

    #[test]
    fn attr_layout_matches_uapi() {
        assert_eq!(size_of::<Attr>(), raw::PERF_ATTR_SIZE_VER9 as usize);
        assert_eq!(offset_of!(Attr, type_), 0);
        assert_eq!(offset_of!(Attr, size), 4);
        assert_eq!(offset_of!(Attr, config), 8);
        assert_eq!(offset_of!(Attr, sample_type), 24);
        assert_eq!(offset_of!(Attr, read_format), 32);
        assert_eq!(offset_of!(Attr, bp_type), 52);
        assert_eq!(offset_of!(Attr, branch_sample_type), 72);
        assert_eq!(offset_of!(Attr, sample_regs_user), 80);
        assert_eq!(offset_of!(Attr, clockid), 92);
        assert_eq!(offset_of!(Attr, sig_data), 120);
        assert_eq!(offset_of!(Attr, config3), 128);
        assert_eq!(offset_of!(Attr, config4), 136);
        assert_eq!(new_attr().size as usize, size_of::<Attr>());
    }

    #[test]
    fn mmap_page_layout_matches_uapi() {
        assert_eq!(offset_of!(MmapPage, lock), 8);
        assert_eq!(offset_of!(MmapPage, index), 12);
        assert_eq!(offset_of!(MmapPage, offset), 16);
        assert_eq!(offset_of!(MmapPage, time_enabled), 24);
        assert_eq!(offset_of!(MmapPage, time_running), 32);
        assert_eq!(offset_of!(MmapPage, pmc_width), 48);
        assert_eq!(offset_of!(MmapPage, time_shift), 50);
        assert_eq!(offset_of!(MmapPage, time_mult), 52);
        assert_eq!(offset_of!(MmapPage, time_offset), 56);
        assert_eq!(offset_of!(MmapPage, time_cycles), 80);
        assert_eq!(offset_of!(MmapPage, time_mask), 88);
        assert_eq!(offset_of!(MmapPage, data_head), 1024);
    }

    #[test]
    fn attr_bitfields_land_on_uapi_bits() {
        let mut a = new_attr();
        a.set_disabled(1);
        a.set_exclude_kernel(1);
        a.set_exclude_hv(1);
        // disabled is bit 0, exclude_kernel bit 5, exclude_hv bit 6 of the flags word at 40.
        // SAFETY: viewing a zero-initialised POD struct as bytes.
        let bytes = unsafe {
            std::slice::from_raw_parts((&a as *const Attr).cast::<u8>(), size_of::<Attr>())
        };
        let flags = u64::from_ne_bytes(bytes[40..48].try_into().unwrap());
        assert_eq!(flags, 1 | (1 << 5) | (1 << 6));
    }

    #[test]
    fn tail_zero_check() {
        let mut a = new_attr();
        assert!(a.tail_is_zero(raw::PERF_ATTR_SIZE_VER5));
        a.config3 = 1;
        assert!(!a.tail_is_zero(raw::PERF_ATTR_SIZE_VER5));
        assert!(a.tail_is_zero(raw::PERF_ATTR_SIZE_VER9));
    }

    #[test]
    fn errno_names() {
        assert_eq!(Errno(libc::ENOENT).name(), "ENOENT");
        assert_eq!(Errno(libc::EOPNOTSUPP).name(), "EOPNOTSUPP");
        assert_eq!(format!("{:?}", Errno(libc::EACCES)), "EACCES(13)");
    }

    #[test]
    fn software_event_opens_and_reads() {
        let mut attr = new_attr();
        attr.type_ = raw::PERF_TYPE_SOFTWARE;
        attr.config = raw::PERF_COUNT_SW_TASK_CLOCK as u64;
        attr.set_disabled(1);
        attr.set_exclude_kernel(1);
        attr.set_exclude_hv(1);
        attr.read_format = GROUP_READ_FORMAT;
        let fd = EventFd::open(&mut attr, 0, -1, None).expect("task-clock opens everywhere");
        fd.reset(Scope::Group).unwrap();
        fd.enable(Scope::Group).unwrap();
        let mut x = 0u64;
        for i in 0..100_000u64 {
            x = std::hint::black_box(x.wrapping_add(i));
        }
        fd.disable(Scope::Group).unwrap();
        let mut buf = [0u64; 5];
        let n = fd.read_words(&mut buf).unwrap();
        assert_eq!(n, 5 * 8);
        assert_eq!(buf[0], 1, "one member");
        assert!(buf[3] > 0, "task-clock advanced");
        assert_eq!(buf[4], fd.id().unwrap());
    }
}
