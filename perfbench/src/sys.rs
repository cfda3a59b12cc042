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
    pub fn last() -> Errno {
        Errno(io::Error::last_os_error().raw_os_error().unwrap_or(0))
    }

    /// The symbolic name (`"ENOENT"`), or `"E?"` for values perfbench never expects.
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

    /// The C library's description of the error.
    pub fn description(self) -> String {
        io::Error::from_raw_os_error(self.0).to_string()
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
    pub fn enable(&self, scope: Scope) -> Result<(), Errno> {
        // SAFETY: a plain ioctl on a descriptor we own; the argument is an integer flag.
        check(unsafe { perf_event_open_sys::ioctls::ENABLE(self.as_raw_fd(), scope.flag()) })
    }

    /// `PERF_EVENT_IOC_DISABLE`.
    pub fn disable(&self, scope: Scope) -> Result<(), Errno> {
        // SAFETY: as in `enable`.
        check(unsafe { perf_event_open_sys::ioctls::DISABLE(self.as_raw_fd(), scope.flag()) })
    }

    /// `PERF_EVENT_IOC_RESET`: zeroes the counts (not `time_enabled`/`time_running`).
    pub fn reset(&self, scope: Scope) -> Result<(), Errno> {
        // SAFETY: as in `enable`.
        check(unsafe { perf_event_open_sys::ioctls::RESET(self.as_raw_fd(), scope.flag()) })
    }

    /// `PERF_EVENT_IOC_ID`: the kernel's id of this event, as reported by `PERF_FORMAT_ID`.
    pub fn id(&self) -> Result<u64, Errno> {
        let mut id = 0u64;
        // SAFETY: the kernel writes one u64 through the pointer, which points at `id`.
        check(unsafe { perf_event_open_sys::ioctls::ID(self.as_raw_fd(), &mut id) })?;
        Ok(id)
    }

    /// `read(2)` into `buf`, retrying `EINTR`. Returns the number of *bytes* read; 0 means
    /// end-of-file, which the kernel reports for a pinned event in error state.
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
    pub fn data_len(&self) -> usize {
        self.data_len
    }

    /// `data_head`: how far the kernel has written (bytes since the start, not wrapped).
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
    pub fn tail(&self) -> u64 {
        // SAFETY: as for `head`; only this value writes `data_tail`.
        let tail = unsafe {
            &*(std::ptr::addr_of_mut!((*self.header()).data_tail)
                as *const std::sync::atomic::AtomicU64)
        };
        tail.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Publishes `data_tail`: everything before `tail` has been copied out.
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

macro_rules! page_field {
    ($(#[$doc:meta])* $name:ident: $ty:ty) => {
        $(#[$doc])*
        #[inline(always)]
        pub fn $name(&self) -> $ty {
            // SAFETY: `ptr` points at a live, page-sized, readable mapping for as long as
            // `self` exists, and the field lies inside the first page.
            unsafe { std::ptr::addr_of!((*self.ptr.as_ptr()).$name).read_volatile() }
        }
    };
}

impl MappedPage {
    page_field!(
        /// The seqlock: odd or changed means an update raced with the reader.
        lock: u32
    );
    page_field!(
        /// Hardware counter index + 1, or 0 when the fast path is not allowed right now.
        index: u32
    );
    page_field!(
        /// Value to add to the (sign-extended) hardware counter.
        offset: i64
    );
    page_field!(
        /// `time_enabled` at the last kernel update.
        time_enabled: u64
    );
    page_field!(
        /// `time_running` at the last kernel update.
        time_running: u64
    );
    page_field!(
        /// Width in bits of the hardware counter.
        pmc_width: u16
    );
    page_field!(
        /// Shift of the cycles-to-time conversion.
        time_shift: u16
    );
    page_field!(
        /// Multiplier of the cycles-to-time conversion.
        time_mult: u32
    );
    page_field!(
        /// Offset of the cycles-to-time conversion.
        time_offset: u64
    );
    page_field!(
        /// Base for `cap_user_time_short`.
        time_cycles: u64
    );
    page_field!(
        /// Mask for `cap_user_time_short`.
        time_mask: u64
    );

    /// The raw capabilities word (`cap_bit0`, `cap_bit0_is_deprecated`, `cap_user_rdpmc`, ...).
    #[inline(always)]
    pub fn capabilities(&self) -> u64 {
        // SAFETY: as for the other fields; the union's `capabilities` member covers all bits.
        unsafe {
            std::ptr::addr_of!((*self.ptr.as_ptr()).__bindgen_anon_1.capabilities).read_volatile()
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
pub fn read_text(path: &std::path::Path) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_owned())
}

/// The current thread's kernel thread id.
pub fn gettid() -> libc::pid_t {
    // SAFETY: gettid has no preconditions.
    unsafe { libc::gettid() }
}

/// The CPUs the calling thread may run on (`sched_getaffinity`), ascending.
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
pub fn current_cpu() -> Option<u32> {
    // SAFETY: sched_getcpu has no preconditions.
    let cpu = unsafe { libc::sched_getcpu() };
    u32::try_from(cpu).ok()
}

/// The width in columns of the terminal on standard error, if it is one (`TIOCGWINSZ`).
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

/// The effective user id.
pub fn geteuid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// `clock_gettime(CLOCK_MONOTONIC)` in nanoseconds: the `wall-time` counter's clock.
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
    pub fn new(pages: usize) -> Result<AnonMapping, Errno> {
        let len = pages.max(1) * page_size();
        let ptr = map_anonymous(len)?;
        Ok(AnonMapping { ptr, len })
    }

    /// Writes one byte to each page, faulting every page in once.
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
