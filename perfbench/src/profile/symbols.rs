//! Naming sampled addresses: which function of which mapped binary an instruction pointer is
//! in, from the binaries' ELF symbol tables (read with the `object` crate; Rust names are
//! demangled with `rustc-demangle`).
//!
//! An address in a mapping is turned into the file offset (`ip - start + pgoff`), then into
//! the virtual address of the `PT_LOAD` segment that holds that offset, which is what the
//! symbol table's addresses are. Binaries are read once each.

use std::collections::HashMap;

use object::{Object, ObjectSegment, ObjectSymbol, SymbolKind};

use super::perfdata::Mapping;

/// A symbol table of one binary: (address, size, demangled name), sorted by address, and its
/// loaded segments as (file offset, file size, virtual address).
#[derive(Debug, Default)]
struct Table {
    symbols: Vec<(u64, u64, String)>,
    segments: Vec<(u64, u64, u64)>,
}

impl Table {
    fn read(path: &str) -> Table {
        let Ok(data) = std::fs::read(path) else {
            return Table::default();
        };
        let Ok(file) = object::File::parse(&*data) else {
            return Table::default();
        };
        let segments = file
            .segments()
            .map(|s| {
                let (offset, size) = s.file_range();
                (offset, size, s.address())
            })
            .collect();
        let mut symbols: Vec<(u64, u64, String)> = file
            .symbols()
            .chain(file.dynamic_symbols())
            .filter(|sym| sym.kind() == SymbolKind::Text && sym.address() != 0)
            .filter_map(|sym| {
                let name = sym.name().ok()?;
                Some((
                    sym.address(),
                    sym.size(),
                    format!("{:#}", rustc_demangle::demangle(name)),
                ))
            })
            .collect();
        symbols.sort_by_key(|s| s.0);
        Table { symbols, segments }
    }

    /// The virtual address of file offset `offset`.
    fn vaddr(&self, offset: u64) -> Option<u64> {
        self.segments
            .iter()
            .find(|&&(o, size, _)| offset >= o && offset - o < size)
            .map(|&(o, _, vaddr)| offset - o + vaddr)
    }

    /// The symbol holding `vaddr`: its address and name.
    fn symbol(&self, vaddr: u64) -> Option<(u64, &str)> {
        let i = self
            .symbols
            .partition_point(|s| s.0 <= vaddr)
            .checked_sub(1)?;
        let (addr, size, name) = &self.symbols[i];
        (*size == 0 || vaddr - addr < *size).then_some((*addr, name.as_str()))
    }
}

/// Names addresses of this process's executable mappings.
#[derive(Debug)]
pub struct Symbolizer {
    maps: Vec<Mapping>,
    tables: HashMap<String, Table>,
}

impl Symbolizer {
    /// A symbolizer over `maps` (binaries are read when first needed).
    ///
    /// ```
    /// use perfbench::profile::perfdata::executable_mappings;
    /// use perfbench::profile::symbols::Symbolizer;
    ///
    /// #[inline(never)]
    /// fn perfbench_doc_hot() -> u64 {
    ///     std::hint::black_box(42)
    /// }
    ///
    /// let maps = executable_mappings(&std::fs::read_to_string("/proc/self/maps")?);
    /// let mut symbols = Symbolizer::new(maps);
    /// let ip = perfbench_doc_hot as *const () as u64;
    /// assert!(symbols.name(ip).ends_with("perfbench_doc_hot"), "{}", symbols.name(ip));
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn new(maps: Vec<Mapping>) -> Symbolizer {
        Symbolizer {
            maps,
            tables: HashMap::new(),
        }
    }

    /// Where `ip` is: `Ok((function, offset into it))`, or `Err` with what to show instead
    /// (`[binary]+0xOFFSET` when the binary has no symbol for it, `0xIP` when no mapping holds
    /// it).
    fn lookup(&mut self, ip: u64) -> Result<(String, u64), String> {
        let Some(m) = self
            .maps
            .iter()
            .find(|m| ip >= m.start && ip - m.start < m.len)
        else {
            return Err(format!("{ip:#x}"));
        };
        let offset = ip - m.start + m.pgoff;
        let table = self
            .tables
            .entry(m.path.clone())
            .or_insert_with(|| Table::read(&m.path));
        let found = table.vaddr(offset).and_then(|v| {
            table
                .symbol(v)
                .map(|(addr, name)| (name.to_owned(), v - addr))
        });
        found.ok_or_else(|| {
            let file = m.path.rsplit('/').next().unwrap_or(&m.path);
            format!("[{file}]+{offset:#x}")
        })
    }

    /// The function `ip` is in, or `[binary]+0xOFFSET` when the binary has no symbol for it,
    /// or `0xIP` when no mapping holds it.
    ///
    /// ```
    /// use perfbench::profile::perfdata::executable_mappings;
    /// use perfbench::profile::symbols::Symbolizer;
    ///
    /// #[inline(never)]
    /// fn perfbench_doc_hot() -> u64 {
    ///     std::hint::black_box(42)
    /// }
    ///
    /// let maps = executable_mappings(&std::fs::read_to_string("/proc/self/maps")?);
    /// let mut symbols = Symbolizer::new(maps);
    /// let ip = perfbench_doc_hot as *const () as u64 + 4; // inside the function
    /// let name = symbols.name(ip);
    /// assert!(name.ends_with("perfbench_doc_hot"), "{name}"); // demangled, without the hash
    /// assert_eq!(symbols.name(8), "0x8"); // no mapping holds it
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn name(&mut self, ip: u64) -> String {
        self.lookup(ip).map_or_else(|other| other, |(name, _)| name)
    }

    /// [`name`](Symbolizer::name) with the offset into the function: `fib+0x1c`.
    ///
    /// ```
    /// use perfbench::profile::perfdata::executable_mappings;
    /// use perfbench::profile::symbols::Symbolizer;
    ///
    /// #[inline(never)]
    /// fn perfbench_doc_hot() -> u64 {
    ///     std::hint::black_box(42)
    /// }
    ///
    /// let maps = executable_mappings(&std::fs::read_to_string("/proc/self/maps")?);
    /// let mut symbols = Symbolizer::new(maps);
    /// let at = symbols.name_at(perfbench_doc_hot as *const () as u64 + 4);
    /// assert!(at.ends_with("perfbench_doc_hot+0x4"), "{at}");
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn name_at(&mut self, ip: u64) -> String {
        self.lookup(ip)
            .map_or_else(|other| other, |(name, delta)| format!("{name}+{delta:#x}"))
    }

    /// The `n` functions the most of `ips` are in, with their counts, most first (ties by
    /// name).
    ///
    /// ```
    /// use perfbench::profile::perfdata::executable_mappings;
    /// use perfbench::profile::symbols::Symbolizer;
    ///
    /// #[inline(never)]
    /// fn perfbench_doc_hot() -> u64 {
    ///     std::hint::black_box(42)
    /// }
    ///
    /// let maps = executable_mappings(&std::fs::read_to_string("/proc/self/maps")?);
    /// let mut symbols = Symbolizer::new(maps);
    /// let hot = perfbench_doc_hot as *const () as u64;
    /// let top = symbols.hottest(&[hot, hot + 1, 8, hot + 2, 16], 2);
    /// assert_eq!(top.len(), 2);
    /// assert!(top[0].0.ends_with("perfbench_doc_hot") && top[0].1 == 3, "{top:?}");
    /// assert_eq!(top[1], ("0x10".to_owned(), 1)); // ties by name: "0x10" before "0x8"
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn hottest(&mut self, ips: &[u64], n: usize) -> Vec<(String, u64)> {
        let mut counts: HashMap<String, u64> = HashMap::new();
        for &ip in ips {
            *counts.entry(self.name(ip)).or_default() += 1;
        }
        let mut all: Vec<(String, u64)> = counts.into_iter().collect();
        all.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        all.truncate(n);
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::perfdata::executable_mappings;

    #[inline(never)]
    fn a_function_to_find() -> u64 {
        std::hint::black_box(42)
    }

    #[test]
    fn this_process_names_its_own_functions() {
        let maps = executable_mappings(&std::fs::read_to_string("/proc/self/maps").unwrap());
        let mut s = Symbolizer::new(maps);
        let ip = a_function_to_find as *const () as usize as u64;
        let name = s.name(ip + 1);
        assert!(name.contains("a_function_to_find"), "{name}");
        assert!(!name.contains("17h"), "demangled without the hash: {name}");
        assert_eq!(s.name(8), "0x8");
        let at = s.name_at(ip + 1);
        assert!(at.contains("a_function_to_find+0x1"), "{at}");
        let hot = s.hottest(&[ip, ip + 1, 8], 5);
        assert_eq!(hot[0].1, 2);
        assert!(hot[0].0.contains("a_function_to_find"));
    }
}
