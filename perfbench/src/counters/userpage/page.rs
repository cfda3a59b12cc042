//! [`PageView`]: read access to the fields of a user page that the fast path uses, for the
//! kernel's mapped page, a handle to it, and references.

use super::*;

/// Read access to the fields of a user page that the fast path uses.
///
/// The accessors mirror those of [`MappedPage`]. Implementations must load the current value on
/// every call (volatile or atomic loads): the reader calls them repeatedly inside a seqlock loop
/// and relies on the loads happening in program order, between its reads of `lock`.
pub trait PageView {
    /// The seqlock: the kernel increments it before and after every update of the page.
    fn lock(&self) -> u32;
    /// The hardware counter's index + 1, or 0 when user space may not read it right now.
    fn index(&self) -> u32;
    /// What to add to the sign-extended hardware counter to obtain the count.
    fn offset(&self) -> i64;
    /// `time_enabled` at the kernel's last update of the page.
    fn time_enabled(&self) -> u64;
    /// `time_running` at the kernel's last update of the page.
    fn time_running(&self) -> u64;
    /// Width in bits of the hardware counter.
    fn pmc_width(&self) -> u16;
    /// Shift of the timestamp-to-nanoseconds conversion.
    fn time_shift(&self) -> u16;
    /// Multiplier of the timestamp-to-nanoseconds conversion.
    fn time_mult(&self) -> u32;
    /// Offset of the timestamp-to-nanoseconds conversion.
    fn time_offset(&self) -> u64;
    /// Base timestamp for `cap_user_time_short`.
    fn time_cycles(&self) -> u64;
    /// Valid timestamp bits for `cap_user_time_short`.
    fn time_mask(&self) -> u64;
    /// The capabilities word; see [`sys::cap`](crate::sys::cap).
    fn capabilities(&self) -> u64;

    /// `true` when the page's writer only ever runs on the CPU of the thread that reads it,
    /// between two of its instructions, so the reader can never see `lock` odd (an update in
    /// progress): the kernel's page of a self-monitoring event, which it updates on the
    /// event's CPU with preemption disabled or in an interrupt there. The reader then skips
    /// the odd test, as the kernel's reference loop does; the final re-check of `lock` still
    /// catches every update. `false` (the default) for a writer on another CPU, like the
    /// simulated page's.
    const WRITER_ON_READER_CPU: bool = false;

    /// A copyable view of the same page, as [`by_ref`](Self::by_ref) returns it.
    type Ref<'a>: PageView + Copy
    where
        Self: 'a;

    /// A copyable view of this page, which the reader takes once per member and read: a value
    /// the compiler keeps in a register, where `&self` may point at memory that the seqlock's
    /// compiler fences make it load again after every fence (the address of a
    /// [`MappedPage`] in the reader's heap slice). [`MappedPage`] gives its
    /// [`PageRef`]; a page that is its own handle gives `&Self`.
    fn by_ref(&self) -> Self::Ref<'_>;
}

macro_rules! forward_page_ref {
    ($($name:ident: $ty:ty),* $(,)?) => {
        $(
            #[inline(always)]
            fn $name(&self) -> $ty {
                PageRef::$name(*self)
            }
        )*
    };
}

macro_rules! forward_page_view {
    ($($name:ident: $ty:ty),* $(,)?) => {
        $(
            #[inline(always)]
            fn $name(&self) -> $ty {
                (**self).$name()
            }
        )*
    };
}

impl PageView for MappedPage {
    const WRITER_ON_READER_CPU: bool = true;

    type Ref<'a> = PageRef<'a>;

    #[inline(always)]
    fn by_ref(&self) -> PageRef<'_> {
        self.page_ref()
    }

    #[inline(always)]
    fn lock(&self) -> u32 {
        MappedPage::lock(self)
    }
    #[inline(always)]
    fn index(&self) -> u32 {
        MappedPage::index(self)
    }
    #[inline(always)]
    fn offset(&self) -> i64 {
        MappedPage::offset(self)
    }
    #[inline(always)]
    fn time_enabled(&self) -> u64 {
        MappedPage::time_enabled(self)
    }
    #[inline(always)]
    fn time_running(&self) -> u64 {
        MappedPage::time_running(self)
    }
    #[inline(always)]
    fn pmc_width(&self) -> u16 {
        MappedPage::pmc_width(self)
    }
    #[inline(always)]
    fn time_shift(&self) -> u16 {
        MappedPage::time_shift(self)
    }
    #[inline(always)]
    fn time_mult(&self) -> u32 {
        MappedPage::time_mult(self)
    }
    #[inline(always)]
    fn time_offset(&self) -> u64 {
        MappedPage::time_offset(self)
    }
    #[inline(always)]
    fn time_cycles(&self) -> u64 {
        MappedPage::time_cycles(self)
    }
    #[inline(always)]
    fn time_mask(&self) -> u64 {
        MappedPage::time_mask(self)
    }
    #[inline(always)]
    fn capabilities(&self) -> u64 {
        MappedPage::capabilities(self)
    }
}

/// The handle of a [`MappedPage`]: the same page, the same loads.
impl<'p> PageView for PageRef<'p> {
    const WRITER_ON_READER_CPU: bool = true;

    type Ref<'a>
        = PageRef<'p>
    where
        Self: 'a;

    #[inline(always)]
    fn by_ref(&self) -> PageRef<'p> {
        *self
    }

    forward_page_ref!(
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
        capabilities: u64,
    );
}

impl<P: PageView + ?Sized> PageView for &P {
    const WRITER_ON_READER_CPU: bool = P::WRITER_ON_READER_CPU;

    type Ref<'a>
        = P::Ref<'a>
    where
        Self: 'a;

    #[inline(always)]
    fn by_ref(&self) -> P::Ref<'_> {
        (**self).by_ref()
    }

    forward_page_view!(
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
        capabilities: u64,
    );
}
