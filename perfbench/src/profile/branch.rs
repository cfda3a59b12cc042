//! Branch stacks: which taken branches the kernel records (`branch_sample_type`, set from a
//! perf-style filter list such as `any_call,u`) and what one recorded branch says
//! (`struct perf_branch_entry`).
//!
//! Branch stacks come from the CPU's last-branch records (Intel LBR, arm64 BRBE); a machine
//! without them refuses `PERF_SAMPLE_BRANCH_STACK` at `perf_event_open`. Decoding needs no such
//! hardware, so everything here is tested on synthesized bytes. See `perf_event_open(2)`,
//! `branch_sample_type`, and `perf-record(1)`, `--branch-filter`.

use std::fmt;
use std::str::FromStr;

use super::record::ByteOrder;
use crate::sys::raw;

/// One filter name as `perf record -j` spells it, and its `PERF_SAMPLE_BRANCH_*` bit.
struct FilterName {
    name: &'static str,
    bit: u32,
}

const fn name(name: &'static str, bit: u32) -> FilterName {
    FilterName { name, bit }
}

/// The names `perf record -j` knows, in bit order. [`BranchFilter`]'s `Display` writes these.
const NAMES: &[FilterName] = &[
    name("u", raw::PERF_SAMPLE_BRANCH_USER),
    name("k", raw::PERF_SAMPLE_BRANCH_KERNEL),
    name("hv", raw::PERF_SAMPLE_BRANCH_HV),
    name("any", raw::PERF_SAMPLE_BRANCH_ANY),
    name("any_call", raw::PERF_SAMPLE_BRANCH_ANY_CALL),
    name("any_ret", raw::PERF_SAMPLE_BRANCH_ANY_RETURN),
    name("ind_call", raw::PERF_SAMPLE_BRANCH_IND_CALL),
    name("abort_tx", raw::PERF_SAMPLE_BRANCH_ABORT_TX),
    name("in_tx", raw::PERF_SAMPLE_BRANCH_IN_TX),
    name("no_tx", raw::PERF_SAMPLE_BRANCH_NO_TX),
    name("cond", raw::PERF_SAMPLE_BRANCH_COND),
    name("stack", raw::PERF_SAMPLE_BRANCH_CALL_STACK),
    name("ind_jmp", raw::PERF_SAMPLE_BRANCH_IND_JUMP),
    name("call", raw::PERF_SAMPLE_BRANCH_CALL),
    name("no_flags", raw::PERF_SAMPLE_BRANCH_NO_FLAGS),
    name("no_cycles", raw::PERF_SAMPLE_BRANCH_NO_CYCLES),
    name("save_type", raw::PERF_SAMPLE_BRANCH_TYPE_SAVE),
    name("hw_index", raw::PERF_SAMPLE_BRANCH_HW_INDEX),
    name("priv", raw::PERF_SAMPLE_BRANCH_PRIV_SAVE),
    name("counter", raw::PERF_SAMPLE_BRANCH_COUNTERS),
];

/// Other spellings accepted on input: the kernel's constant names where perf abbreviates.
const ALIASES: &[FilterName] = &[
    name("any_return", raw::PERF_SAMPLE_BRANCH_ANY_RETURN),
    name("call_stack", raw::PERF_SAMPLE_BRANCH_CALL_STACK),
    name("ind_jump", raw::PERF_SAMPLE_BRANCH_IND_JUMP),
    name("counters", raw::PERF_SAMPLE_BRANCH_COUNTERS),
];

/// The privilege bits `u`, `k`, `hv` (`PERF_SAMPLE_BRANCH_PLM_ALL`).
const PRIVILEGE: u64 = (raw::PERF_SAMPLE_BRANCH_USER
    | raw::PERF_SAMPLE_BRANCH_KERNEL
    | raw::PERF_SAMPLE_BRANCH_HV) as u64;

/// The bits that select branch types; a filter needs at least one, else it means `any`.
const TYPES: u64 = (raw::PERF_SAMPLE_BRANCH_ANY
    | raw::PERF_SAMPLE_BRANCH_ANY_CALL
    | raw::PERF_SAMPLE_BRANCH_ANY_RETURN
    | raw::PERF_SAMPLE_BRANCH_IND_CALL
    | raw::PERF_SAMPLE_BRANCH_ABORT_TX
    | raw::PERF_SAMPLE_BRANCH_IN_TX
    | raw::PERF_SAMPLE_BRANCH_NO_TX
    | raw::PERF_SAMPLE_BRANCH_COND
    | raw::PERF_SAMPLE_BRANCH_CALL_STACK
    | raw::PERF_SAMPLE_BRANCH_IND_JUMP
    | raw::PERF_SAMPLE_BRANCH_CALL) as u64;

/// Which taken branches a branch stack records: `perf_event_attr.branch_sample_type`.
///
/// Parsed from a comma-separated list of the names `perf record -j` takes (case-insensitive):
/// branch types `any`, `any_call`, `any_ret`, `ind_call`, `cond`, `call`, `ind_jmp`, `stack`
/// (call-stack mode), `abort_tx`, `in_tx`, `no_tx`; privilege levels `u`, `k`, `hv`; and the
/// modifiers `no_flags`, `no_cycles`, `save_type`, `hw_index`, `priv`, `counter`. The kernel's
/// spellings `any_return`, `call_stack`, `ind_jump` are accepted too.
///
/// As in perf: when no privilege level is named none is set, and the kernel then applies the
/// event's own `exclude_user`/`exclude_kernel`/`exclude_hv`. When no branch type is named,
/// `any` is added (perf does the same, though it also drops the privilege levels then; this
/// keeps them).
///
/// ```
/// use perfbench::profile::branch::BranchFilter;
///
/// let filter: BranchFilter = "any_call,u".parse().unwrap();
/// assert_eq!(filter.to_string(), "u,any_call");
/// assert!("any,bogus".parse::<BranchFilter>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BranchFilter(u64);

impl BranchFilter {
    /// Every taken branch, at the event's privilege levels (`perf record -b`).
    pub const ANY: BranchFilter = BranchFilter(raw::PERF_SAMPLE_BRANCH_ANY as u64);

    /// A filter from raw `branch_sample_type` bits, kept as they are.
    ///
    /// ```
    /// use perfbench::profile::branch::BranchFilter;
    /// use perfbench::sys::raw;
    ///
    /// let bits = u64::from(raw::PERF_SAMPLE_BRANCH_ANY_CALL | raw::PERF_SAMPLE_BRANCH_USER);
    /// let filter = BranchFilter::from_bits(bits);
    /// assert_eq!((filter.bits(), filter.to_string().as_str()), (bits, "u,any_call"));
    /// // Bits without a name are kept, and shown in hexadecimal.
    /// assert_eq!(BranchFilter::from_bits(1 << 40).to_string(), "0x10000000000");
    /// ```
    pub fn from_bits(bits: u64) -> BranchFilter {
        BranchFilter(bits)
    }

    /// The `branch_sample_type` bits to put in the attr.
    ///
    /// ```
    /// use perfbench::profile::branch::BranchFilter;
    /// use perfbench::sys::{new_attr, raw};
    ///
    /// let mut attr = new_attr();
    /// attr.branch_sample_type = "any_ret,k".parse::<BranchFilter>()?.bits();
    /// let ret_k = raw::PERF_SAMPLE_BRANCH_ANY_RETURN | raw::PERF_SAMPLE_BRANCH_KERNEL;
    /// assert_eq!(attr.branch_sample_type, u64::from(ret_k));
    /// # Ok::<(), perfbench::profile::branch::BranchFilterError>(())
    /// ```
    pub fn bits(self) -> u64 {
        self.0
    }

    /// Parses a `perf record -j` list, such as `any_call,any_ret,u`.
    ///
    /// ```
    /// use perfbench::profile::branch::BranchFilter;
    ///
    /// let f = BranchFilter::parse("ANY_CALL, any_ret ,u")?; // case and spaces do not matter
    /// assert_eq!(f.to_string(), "u,any_call,any_ret");
    /// // No branch type named: `any`, as in perf.
    /// assert_eq!(BranchFilter::parse("u")?.to_string(), "u,any");
    /// // The kernel's spellings are accepted too.
    /// assert_eq!(BranchFilter::parse("call_stack")?, BranchFilter::parse("stack")?);
    ///
    /// let e = BranchFilter::parse("any,bogus").unwrap_err();
    /// assert_eq!(e.entry, "bogus");
    /// assert!(e.to_string().starts_with("unknown branch filter `bogus`; known: u, k, hv, any,"));
    /// assert!(BranchFilter::parse("").is_err());
    /// # Ok::<(), perfbench::profile::branch::BranchFilterError>(())
    /// ```
    pub fn parse(list: &str) -> Result<BranchFilter, BranchFilterError> {
        if list.trim().is_empty() {
            return Err(BranchFilterError::new(
                list,
                "the branch filter list is empty",
            ));
        }
        let mut bits = 0;
        for entry in list.split(',') {
            bits |= bit_of(entry.trim())?;
        }
        if bits & TYPES == 0 {
            bits |= u64::from(raw::PERF_SAMPLE_BRANCH_ANY);
        }
        Ok(BranchFilter(bits))
    }

    /// Whether records carry `hw_idx` before the entries (`hw_index`).
    ///
    /// ```
    /// use perfbench::profile::branch::BranchFilter;
    ///
    /// assert!(BranchFilter::parse("any,hw_index")?.has_hw_index());
    /// assert!(!BranchFilter::ANY.has_hw_index());
    /// # Ok::<(), perfbench::profile::branch::BranchFilterError>(())
    /// ```
    pub fn has_hw_index(self) -> bool {
        self.0 & u64::from(raw::PERF_SAMPLE_BRANCH_HW_INDEX) != 0
    }

    /// Whether no privilege level is set, so the event's `exclude_*` bits decide.
    ///
    /// ```
    /// use perfbench::profile::branch::BranchFilter;
    ///
    /// assert!(BranchFilter::parse("any_call")?.privilege_from_event()); // exclude_* decide
    /// assert!(!BranchFilter::parse("any_call,u")?.privilege_from_event()); // user space only
    /// # Ok::<(), perfbench::profile::branch::BranchFilterError>(())
    /// ```
    pub fn privilege_from_event(self) -> bool {
        self.0 & PRIVILEGE == 0
    }
}

impl Default for BranchFilter {
    fn default() -> BranchFilter {
        BranchFilter::ANY
    }
}

impl FromStr for BranchFilter {
    type Err = BranchFilterError;

    fn from_str(list: &str) -> Result<BranchFilter, BranchFilterError> {
        BranchFilter::parse(list)
    }
}

/// The names, comma-separated in bit order; bits without a name as one hexadecimal number.
impl fmt::Display for BranchFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.0;
        let mut first = true;
        for n in NAMES {
            let bit = u64::from(n.bit);
            if rest & bit != 0 {
                write!(f, "{}{}", if first { "" } else { "," }, n.name)?;
                rest &= !bit;
                first = false;
            }
        }
        if rest != 0 {
            write!(f, "{}{rest:#x}", if first { "" } else { "," })?;
        }
        Ok(())
    }
}

fn bit_of(entry: &str) -> Result<u64, BranchFilterError> {
    if entry.is_empty() {
        return Err(BranchFilterError::new(
            entry,
            format!(
                "empty entry in the branch filter list; known: {}",
                known_names()
            ),
        ));
    }
    NAMES
        .iter()
        .chain(ALIASES)
        .find(|n| n.name.eq_ignore_ascii_case(entry))
        .map(|n| u64::from(n.bit))
        .ok_or_else(|| {
            BranchFilterError::new(
                entry,
                format!("unknown branch filter `{entry}`; known: {}", known_names()),
            )
        })
}

fn known_names() -> String {
    let names: Vec<&str> = NAMES.iter().map(|n| n.name).collect();
    names.join(", ")
}

/// A branch filter list that could not be parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BranchFilterError {
    /// The offending entry (or the whole list when it is empty).
    pub entry: String,
    /// What is wrong, in a sentence that names the entry and lists the known names.
    pub message: String,
}

impl BranchFilterError {
    fn new(entry: &str, message: impl Into<String>) -> BranchFilterError {
        BranchFilterError {
            entry: entry.to_owned(),
            message: message.into(),
        }
    }
}

impl fmt::Display for BranchFilterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for BranchFilterError {}

/// The bit fields of `perf_branch_entry.flags` as `(offset, width)` in the little-endian
/// bitfield order (x86, arm64, little-endian powerpc): the first field takes the lowest bits.
mod field {
    pub const MISPRED: (u32, u32) = (0, 1);
    pub const PREDICTED: (u32, u32) = (1, 1);
    pub const IN_TX: (u32, u32) = (2, 1);
    pub const ABORT: (u32, u32) = (3, 1);
    pub const CYCLES: (u32, u32) = (4, 16);
    pub const TYPE: (u32, u32) = (20, 4);
    pub const SPEC: (u32, u32) = (24, 2);
    pub const NEW_TYPE: (u32, u32) = (26, 4);
    pub const PRIV: (u32, u32) = (30, 3);
}

/// Where a bit field sits in the flags word read in `order`: a big-endian ABI allocates
/// bit fields from the most significant bit down (what perf's
/// `evsel__bitfield_swap_branch_flags` undoes for files of the other byte order).
fn shift(order: ByteOrder, (offset, width): (u32, u32)) -> u32 {
    match order {
        ByteOrder::Little => offset,
        ByteOrder::Big => 64 - offset - width,
    }
}

fn get(flags: u64, order: ByteOrder, at: (u32, u32)) -> u64 {
    (flags >> shift(order, at)) & ((1u64 << at.1) - 1)
}

fn put(order: ByteOrder, at: (u32, u32), value: u64) -> u64 {
    (value & ((1u64 << at.1) - 1)) << shift(order, at)
}

/// One taken branch of a branch stack: `struct perf_branch_entry`.
///
/// CPUs that do not report a field leave it 0 (`mispredicted == predicted == false` when
/// prediction is not reported; `cycles == 0` when not counted).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BranchEntry {
    /// Address of the branch instruction (or of the instruction before an interrupt).
    pub from: u64,
    /// Branch target.
    pub to: u64,
    /// The target was mispredicted (`mispred`).
    pub mispredicted: bool,
    /// The target was predicted (`predicted`).
    pub predicted: bool,
    /// The branch ran inside a hardware transaction (`in_tx`).
    pub in_tx: bool,
    /// The branch is a transaction abort (`abort`).
    pub abort: bool,
    /// Cycles since the previous branch (`cycles`, 16 bits; 0 when not counted).
    pub cycles: u16,
    /// Branch type, a `PERF_BR_*` value (`type`, 4 bits); see [`type_name`]. Recorded only with
    /// `save_type` (always on Intel Arch LBR).
    pub kind: u8,
    /// Speculation outcome, a `PERF_BR_SPEC_*` value (`spec`, 2 bits); see [`spec_name`].
    pub spec: u8,
    /// The extended type, a `PERF_BR_NEW_*` value, meaningful when `kind` is
    /// `PERF_BR_EXTEND_ABI` (`new_type`, 4 bits); see [`new_type_name`].
    pub new_type: u8,
    /// Privilege level of the target, a `PERF_BR_PRIV_*` value (`priv`, 3 bits; recorded with
    /// `priv`); see [`privilege_name`].
    pub privilege: u8,
}

impl BranchEntry {
    /// Decodes an entry from its three words, each already read in `order`.
    ///
    /// An x86 LBR entry: a predicted call, 37 cycles after the branch before it.
    ///
    /// ```
    /// use perfbench::profile::branch::BranchEntry;
    /// use perfbench::profile::record::ByteOrder;
    /// use perfbench::sys::raw;
    ///
    /// // predicted is bit 1, cycles bits 4..20, type bits 20..24 (on a little-endian machine).
    /// let flags = 1 << 1 | 37 << 4 | u64::from(raw::PERF_BR_CALL) << 20;
    /// let e = BranchEntry::from_words(0x40_1000, 0x40_2000, flags, ByteOrder::Little);
    /// assert!(e.predicted && !e.mispredicted);
    /// assert_eq!((e.from, e.to, e.cycles, e.type_name()), (0x40_1000, 0x40_2000, 37, "call"));
    /// // The same word from a big-endian machine holds other fields.
    /// assert_ne!(BranchEntry::from_words(0x40_1000, 0x40_2000, flags, ByteOrder::Big), e);
    /// ```
    pub fn from_words(from: u64, to: u64, flags: u64, order: ByteOrder) -> BranchEntry {
        let bit = |at| get(flags, order, at) != 0;
        BranchEntry {
            from,
            to,
            mispredicted: bit(field::MISPRED),
            predicted: bit(field::PREDICTED),
            in_tx: bit(field::IN_TX),
            abort: bit(field::ABORT),
            cycles: get(flags, order, field::CYCLES) as u16,
            kind: get(flags, order, field::TYPE) as u8,
            spec: get(flags, order, field::SPEC) as u8,
            new_type: get(flags, order, field::NEW_TYPE) as u8,
            privilege: get(flags, order, field::PRIV) as u8,
        }
    }

    /// The flags word the kernel would write on a machine of `order` (reserved bits 0; values
    /// wider than their field are cut to it).
    ///
    /// ```
    /// use perfbench::profile::branch::BranchEntry;
    /// use perfbench::profile::record::ByteOrder;
    ///
    /// let e = BranchEntry { mispredicted: true, cycles: 12, ..BranchEntry::default() };
    /// // Bit fields are allocated from the low bits on little-endian machines, from the high bits
    /// // on big-endian ones.
    /// assert_eq!(e.flags(ByteOrder::Little), 1 | 12 << 4);
    /// assert_eq!(e.flags(ByteOrder::Big), 1 << 63 | 12 << 44);
    /// for order in [ByteOrder::Little, ByteOrder::Big] {
    ///     assert_eq!(BranchEntry::from_words(0, 0, e.flags(order), order), e);
    /// }
    /// ```
    pub fn flags(&self, order: ByteOrder) -> u64 {
        put(order, field::MISPRED, u64::from(self.mispredicted))
            | put(order, field::PREDICTED, u64::from(self.predicted))
            | put(order, field::IN_TX, u64::from(self.in_tx))
            | put(order, field::ABORT, u64::from(self.abort))
            | put(order, field::CYCLES, u64::from(self.cycles))
            | put(order, field::TYPE, u64::from(self.kind))
            | put(order, field::SPEC, u64::from(self.spec))
            | put(order, field::NEW_TYPE, u64::from(self.new_type))
            | put(order, field::PRIV, u64::from(self.privilege))
    }

    /// The branch type's name: [`new_type_name`] for `PERF_BR_EXTEND_ABI`, else [`type_name`].
    ///
    /// ```
    /// use perfbench::profile::branch::BranchEntry;
    /// use perfbench::sys::raw;
    ///
    /// let ret = BranchEntry { kind: raw::PERF_BR_RET as u8, ..BranchEntry::default() };
    /// assert_eq!(ret.type_name(), "ret");
    /// let fault = BranchEntry {
    ///     kind: raw::PERF_BR_EXTEND_ABI as u8,
    ///     new_type: raw::PERF_BR_NEW_FAULT_DATA as u8,
    ///     ..BranchEntry::default()
    /// };
    /// assert_eq!(fault.type_name(), "fault_data");
    /// ```
    pub fn type_name(&self) -> &'static str {
        if u32::from(self.kind) == raw::PERF_BR_EXTEND_ABI {
            new_type_name(self.new_type)
        } else {
            type_name(self.kind)
        }
    }
}

/// The name of a `PERF_BR_*` branch type: `"cond"`, `"call"`, `"ret"`, ... (`"unknown"` for
/// `PERF_BR_UNKNOWN`, which is also what CPUs that do not classify branches report).
///
/// ```
/// use perfbench::profile::branch::type_name;
/// use perfbench::sys::raw;
///
/// assert_eq!(type_name(raw::PERF_BR_COND as u8), "cond");
/// assert_eq!(type_name(raw::PERF_BR_UNKNOWN as u8), "unknown");
/// assert_eq!(type_name(16), "invalid"); // wider than the 4-bit field
/// ```
pub fn type_name(kind: u8) -> &'static str {
    const NAMES: [&str; 16] = [
        "unknown",
        "cond",
        "uncond",
        "ind",
        "call",
        "ind_call",
        "ret",
        "syscall",
        "sysret",
        "cond_call",
        "cond_ret",
        "eret",
        "irq",
        "serror",
        "no_tx",
        "extend_abi",
    ];
    NAMES.get(usize::from(kind)).copied().unwrap_or("invalid")
}

/// The name of a `PERF_BR_NEW_*` extended branch type (`PERF_BR_NEW_ARCH_1..5` are the arm64
/// FIQ and debug branches).
///
/// ```
/// use perfbench::profile::branch::new_type_name;
/// use perfbench::sys::raw;
///
/// assert_eq!(new_type_name(raw::PERF_BR_NEW_FAULT_ALGN as u8), "fault_algn");
/// assert_eq!(new_type_name(raw::PERF_BR_NEW_ARCH_5 as u8), "arch_5");
/// assert_eq!(new_type_name(8), "invalid");
/// ```
pub fn new_type_name(new_type: u8) -> &'static str {
    const NAMES: [&str; 8] = [
        "fault_algn",
        "fault_data",
        "fault_inst",
        "arch_1",
        "arch_2",
        "arch_3",
        "arch_4",
        "arch_5",
    ];
    NAMES
        .get(usize::from(new_type))
        .copied()
        .unwrap_or("invalid")
}

/// The name of a `PERF_BR_SPEC_*` value.
///
/// ```
/// use perfbench::profile::branch::spec_name;
/// use perfbench::sys::raw;
///
/// assert_eq!(spec_name(raw::PERF_BR_SPEC_NA as u8), "na");
/// assert_eq!(spec_name(raw::PERF_BR_SPEC_WRONG_PATH as u8), "wrong_path");
/// assert_eq!(spec_name(4), "invalid");
/// ```
pub fn spec_name(spec: u8) -> &'static str {
    const NAMES: [&str; 4] = [
        "na",
        "wrong_path",
        "non_spec_correct_path",
        "spec_correct_path",
    ];
    NAMES.get(usize::from(spec)).copied().unwrap_or("invalid")
}

/// The name of a `PERF_BR_PRIV_*` value.
///
/// ```
/// use perfbench::profile::branch::privilege_name;
/// use perfbench::sys::raw;
///
/// assert_eq!(privilege_name(raw::PERF_BR_PRIV_USER as u8), "user");
/// assert_eq!(privilege_name(raw::PERF_BR_PRIV_KERNEL as u8), "kernel");
/// assert_eq!(privilege_name(7), "invalid");
/// ```
pub fn privilege_name(privilege: u8) -> &'static str {
    const NAMES: [&str; 4] = ["unknown", "user", "kernel", "hv"];
    NAMES
        .get(usize::from(privilege))
        .copied()
        .unwrap_or("invalid")
}

/// The `PERF_SAMPLE_BRANCH_STACK` field of a sample.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BranchStack {
    /// The hardware's index of the newest entry in its ring (`hw_idx`), with `hw_index`.
    pub hw_idx: Option<u64>,
    /// The taken branches, newest first.
    pub entries: Vec<BranchEntry>,
    /// One word of event counts per entry, with `counter` (`PERF_SAMPLE_BRANCH_COUNTERS`);
    /// their layout is in `/sys/bus/event_source/devices/cpu/caps/branch_counter_*`.
    pub counters: Option<Vec<u64>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(list: &str) -> u64 {
        BranchFilter::parse(list).unwrap().bits()
    }

    fn b(bit: u32) -> u64 {
        u64::from(bit)
    }

    #[test]
    fn every_name_maps_to_its_bit_and_back() {
        for n in NAMES {
            let any = if b(n.bit) & TYPES == 0 {
                b(raw::PERF_SAMPLE_BRANCH_ANY)
            } else {
                0
            };
            assert_eq!(bits(n.name), b(n.bit) | any, "{}", n.name);
            let shown = BranchFilter::from_bits(b(n.bit)).to_string();
            assert_eq!(shown, n.name);
        }
        for a in ALIASES {
            assert_eq!(bits(a.name) & b(a.bit), b(a.bit), "{}", a.name);
        }
    }

    #[test]
    fn lists_combine_and_ignore_case_and_spaces() {
        let f = BranchFilter::parse("ANY_CALL, any_ret ,u,K").unwrap();
        assert_eq!(
            f.bits(),
            b(raw::PERF_SAMPLE_BRANCH_ANY_CALL
                | raw::PERF_SAMPLE_BRANCH_ANY_RETURN
                | raw::PERF_SAMPLE_BRANCH_USER
                | raw::PERF_SAMPLE_BRANCH_KERNEL)
        );
        assert_eq!(f.to_string(), "u,k,any_call,any_ret");
        assert_eq!(f.to_string().parse::<BranchFilter>().unwrap(), f);
        assert!(!f.privilege_from_event());
    }

    #[test]
    fn the_kernel_spellings_are_aliases() {
        assert_eq!(bits("any_return"), bits("any_ret"));
        assert_eq!(bits("call_stack"), bits("stack"));
        assert_eq!(bits("ind_jump"), bits("ind_jmp"));
    }

    #[test]
    fn no_privilege_named_sets_none() {
        let f = BranchFilter::parse("any").unwrap();
        assert_eq!(f, BranchFilter::ANY);
        assert!(f.privilege_from_event());
    }

    #[test]
    fn no_type_named_means_any() {
        assert_eq!(
            bits("u"),
            b(raw::PERF_SAMPLE_BRANCH_USER | raw::PERF_SAMPLE_BRANCH_ANY)
        );
        assert_eq!(
            bits("hw_index,save_type"),
            b(raw::PERF_SAMPLE_BRANCH_HW_INDEX
                | raw::PERF_SAMPLE_BRANCH_TYPE_SAVE
                | raw::PERF_SAMPLE_BRANCH_ANY)
        );
        assert!(BranchFilter::parse("hw_index").unwrap().has_hw_index());
    }

    #[test]
    fn unknown_and_empty_entries_are_named_with_the_known_list() {
        let e = BranchFilter::parse("any,bogus").unwrap_err();
        assert_eq!(e.entry, "bogus");
        assert!(
            e.to_string().contains("unknown branch filter `bogus`"),
            "{e}"
        );
        assert!(e.to_string().contains("any_call, any_ret, ind_call"), "{e}");
        let e = BranchFilter::parse("any,,u").unwrap_err();
        assert!(e.to_string().contains("empty entry"), "{e}");
        let e = BranchFilter::parse(" ").unwrap_err();
        assert!(e.to_string().contains("empty"), "{e}");
    }

    #[test]
    fn unnamed_bits_display_in_hex() {
        let f = BranchFilter::from_bits(b(raw::PERF_SAMPLE_BRANCH_ANY) | 1 << 40);
        assert_eq!(f.to_string(), "any,0x10000000000");
    }

    fn sample_entry() -> BranchEntry {
        BranchEntry {
            from: 0x1000,
            to: 0x2000,
            mispredicted: true,
            predicted: false,
            in_tx: true,
            abort: false,
            cycles: 0xabcd,
            kind: raw::PERF_BR_IND_CALL as u8,
            spec: raw::PERF_BR_SPEC_WRONG_PATH as u8,
            new_type: raw::PERF_BR_NEW_FAULT_INST as u8,
            privilege: raw::PERF_BR_PRIV_KERNEL as u8,
        }
    }

    #[test]
    fn little_endian_flags_take_the_low_bits_first() {
        // mispred bit 0, in_tx bit 2, cycles bits 4..20, type 20..24, spec 24..26,
        // new_type 26..30, priv 30..33.
        let flags = 1 | 1 << 2 | 0xabcd << 4 | 5 << 20 | 1 << 24 | 2 << 26 | 2 << 30;
        assert_eq!(
            BranchEntry::from_words(0x1000, 0x2000, flags, ByteOrder::Little),
            sample_entry()
        );
        assert_eq!(sample_entry().flags(ByteOrder::Little), flags);
    }

    #[test]
    fn big_endian_flags_take_the_high_bits_first() {
        let flags = 1 << 63 | 1 << 61 | 0xabcd << 44 | 5 << 40 | 1 << 38 | 2 << 34 | 2 << 31;
        assert_eq!(
            BranchEntry::from_words(0x1000, 0x2000, flags, ByteOrder::Big),
            sample_entry()
        );
        assert_eq!(sample_entry().flags(ByteOrder::Big), flags);
    }

    #[test]
    fn reserved_bits_are_ignored() {
        let little = BranchEntry::from_words(1, 2, !0 << 33, ByteOrder::Little);
        assert_eq!(
            little,
            BranchEntry {
                from: 1,
                to: 2,
                ..BranchEntry::default()
            }
        );
        let big = BranchEntry::from_words(1, 2, (1 << 31) - 1, ByteOrder::Big);
        assert_eq!(
            big,
            BranchEntry {
                from: 1,
                to: 2,
                ..BranchEntry::default()
            }
        );
        let all = BranchEntry::from_words(0, 0, !0, ByteOrder::Little);
        assert_eq!((all.cycles, all.kind, all.spec), (0xffff, 15, 3));
        assert_eq!((all.new_type, all.privilege), (15, 7));
    }

    /// The bit positions agree with the bindgen layout of the uapi header's bit fields.
    #[cfg(target_endian = "little")]
    #[test]
    fn positions_match_the_uapi_bindings() {
        let mut raw_entry = raw::perf_branch_entry::default();
        raw_entry.set_mispred(1);
        raw_entry.set_in_tx(1);
        raw_entry.set_cycles(0xabcd);
        raw_entry.set_type(u64::from(raw::PERF_BR_IND_CALL));
        raw_entry.set_spec(u64::from(raw::PERF_BR_SPEC_WRONG_PATH));
        raw_entry.set_new_type(u64::from(raw::PERF_BR_NEW_FAULT_INST));
        raw_entry.set_priv(u64::from(raw::PERF_BR_PRIV_KERNEL));
        let flags = raw_entry._bitfield_1.get(0, 64);
        assert_eq!(sample_entry().flags(ByteOrder::Little), flags);
        let mut only_predicted = raw::perf_branch_entry::default();
        only_predicted.set_predicted(1);
        only_predicted.set_abort(1);
        let decoded = BranchEntry::from_words(
            0,
            0,
            only_predicted._bitfield_1.get(0, 64),
            ByteOrder::Little,
        );
        assert!(decoded.predicted && decoded.abort && !decoded.mispredicted && !decoded.in_tx);
    }

    #[test]
    fn names_of_types_speculation_and_privilege() {
        assert_eq!(type_name(raw::PERF_BR_COND as u8), "cond");
        assert_eq!(type_name(raw::PERF_BR_RET as u8), "ret");
        assert_eq!(type_name(raw::PERF_BR_SERROR as u8), "serror");
        assert_eq!(type_name(raw::PERF_BR_EXTEND_ABI as u8), "extend_abi");
        assert_eq!(type_name(16), "invalid");
        let extended = BranchEntry {
            kind: raw::PERF_BR_EXTEND_ABI as u8,
            new_type: raw::PERF_BR_NEW_FAULT_DATA as u8,
            ..BranchEntry::default()
        };
        assert_eq!(extended.type_name(), "fault_data");
        assert_eq!(sample_entry().type_name(), "ind_call");
        assert_eq!(new_type_name(8), "invalid");
        assert_eq!(
            spec_name(raw::PERF_BR_SPEC_CORRECT_PATH as u8),
            "spec_correct_path"
        );
        assert_eq!(privilege_name(raw::PERF_BR_PRIV_HV as u8), "hv");
        assert_eq!(privilege_name(7), "invalid");
    }
}
