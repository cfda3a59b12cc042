use super::*;
use crate::events::fixtures::FakeSysfs;

fn field(spec: &str) -> FormatField {
    FormatField::parse("f", spec).expect(spec)
}

#[test]
fn format_specs_parse() {
    assert_eq!(field("config:0-7").bits, [(0, 7)]);
    assert_eq!(field("config:0-7").target, ConfigWord::Config);
    assert_eq!(field("config1:1").target, ConfigWord::Config1);
    assert_eq!(field("config1:1").bits, [(1, 1)]);
    assert_eq!(field("config2:0-63").width(), 64);
    assert_eq!(field("config3:5").target, ConfigWord::Config3);
    assert_eq!(field("config:0-7,32-35").bits, [(0, 7), (32, 35)]);
    assert_eq!(field("config:32-35,0-7").bits, [(0, 7), (32, 35)]);
    assert_eq!(field(" config:0-7,21 \n").bits, [(0, 7), (21, 21)]);
    assert_eq!(field("config:0-7,32-35").width(), 12);
    assert_eq!(field("config:0-7,32-35").mask(), 0xf_0000_00ff);
}

#[test]
fn bad_format_specs_are_rejected() {
    for spec in [
        "",
        "config",
        "config:",
        "config4:0",
        "conf:0-7",
        "config:7-0",
        "config:0-64",
        "config:64",
        "config:a-b",
        "config:0-7,",
        "config:0-7,4-9",
        "config:-1",
    ] {
        assert_eq!(FormatField::parse("f", spec), None, "{spec:?}");
    }
}

#[test]
fn place_spreads_values_over_ranges() {
    let amd_event = field("config:0-7,32-35");
    assert_eq!(amd_event.place(0xabc), Ok(0xa_0000_00bc));
    assert_eq!(amd_event.place(0xfff), Ok(amd_event.mask()));
    assert_eq!(amd_event.place(0), Ok(0));
    assert_eq!(field("config:8-15").place(0x03), Ok(0x300));
    assert_eq!(field("config1:1").place(1), Ok(2));
    assert_eq!(field("config:0-63").place(u64::MAX), Ok(u64::MAX));
    assert_eq!(field("config:63").place(1), Ok(1 << 63));
}

#[test]
fn place_rejects_values_wider_than_the_field() {
    let err = field("config:0-7,32-35").place(0x1000).unwrap_err();
    assert_eq!(err.max, 0xfff);
    assert_eq!(err.value, 0x1000);
    assert!(err.to_string().contains("0xfff"), "{err}");
    assert!(field("config1:1").place(2).is_err());
    assert!(field("config:8-15").place(0x100).is_err());
}

#[test]
fn cpu_lists() {
    assert_eq!(parse_cpu_list("0-3"), Some(vec![0, 1, 2, 3]));
    assert_eq!(parse_cpu_list("16-17,4,2-3\n"), Some(vec![2, 3, 4, 16, 17]));
    assert_eq!(parse_cpu_list(""), Some(vec![]));
    assert_eq!(parse_cpu_list("3-1"), None);
    assert_eq!(parse_cpu_list("x"), None);
    assert_eq!(parse_cpu_list("0-4294967295"), None);
}

#[test]
fn intel_tree_is_read() {
    let fake = FakeSysfs::intel();
    let sysfs = fake.sysfs();
    let names: Vec<_> = sysfs.pmus().into_iter().map(|p| p.name).collect();
    assert_eq!(names, ["cpu", "software", "tracepoint"]);

    let cpu = sysfs.pmu("cpu").unwrap();
    assert_eq!(cpu.type_, 4);
    assert_eq!(cpu.cpus, None);
    assert_eq!(cpu.format("umask").unwrap().bits, [(8, 15)]);
    assert_eq!(cpu.format("edge").unwrap().bits, [(18, 18)]);
    assert_eq!(cpu.events["instructions"], "event=0xc0");
    assert_eq!(cpu.events["ref-cycles"], "event=0x00,umask=0x03");
    let formats: Vec<_> = cpu.formats.iter().map(|f| f.name.as_str()).collect();
    let mut sorted = formats.clone();
    sorted.sort_unstable();
    assert_eq!(formats, sorted);
    for name in ["cmask", "edge", "event", "inv", "umask"] {
        assert!(formats.contains(&name), "{name}");
    }
    assert_eq!(sysfs.pmu("software").unwrap().type_, 1);
    assert_eq!(sysfs.pmu("tracepoint").unwrap().type_, 2);
    assert!(sysfs.pmu("software").unwrap().events.is_empty());

    let core: Vec<_> = sysfs.core_pmus().into_iter().map(|p| p.name).collect();
    assert_eq!(core, ["cpu"]);
}

#[test]
fn hybrid_tree_is_read() {
    let fake = FakeSysfs::hybrid();
    let sysfs = fake.sysfs();
    let core: Vec<_> = sysfs.core_pmus().into_iter().map(|p| p.name).collect();
    assert_eq!(core, ["cpu_atom", "cpu_core"]);
    let atom = sysfs.pmu("cpu_atom").unwrap();
    assert_eq!(atom.type_, 10);
    assert_eq!(atom.cpus.as_deref(), Some("16-23"));
    assert_eq!(atom.cpu_ids(), Some((16..=23).collect()));
    assert_eq!(sysfs.pmu("cpu_core").unwrap().cpu_ids().unwrap().len(), 16);
    assert_eq!(sysfs.pmu("cpu"), None);
}

#[test]
fn arm64_tree_is_read() {
    let fake = FakeSysfs::arm64();
    let sysfs = fake.sysfs();
    let pmu = sysfs.pmu("armv8_pmuv3_0").unwrap();
    assert_eq!(pmu.type_, 8);
    assert_eq!(pmu.cpus.as_deref(), Some("0-3"));
    assert_eq!(pmu.format("event").unwrap().width(), 16);
    assert_eq!(pmu.format("long").unwrap().target, ConfigWord::Config1);
    assert_eq!(pmu.format("rdpmc").unwrap().place(1), Ok(2));
    assert_eq!(pmu.events["inst_retired"], "event=0x0008");
    let core: Vec<_> = sysfs.core_pmus().into_iter().map(|p| p.name).collect();
    assert_eq!(core, ["armv8_pmuv3_0"]);
}

#[test]
fn scale_and_unit_files_are_metadata_not_events() {
    let fake = FakeSysfs::new();
    fake.pmu("power", 9)
        .format("event", "config:0-7")
        .event("energy-pkg", "event=0x02")
        .event("energy-pkg.scale", "2.3283064365386962890625e-10")
        .event("energy-pkg.unit", "Joules")
        .event("energy-cores.scale", "not a number")
        .event("energy-pkg.per-pkg", "1");
    let power = fake.sysfs().pmu("power").unwrap();
    assert_eq!(power.events.keys().collect::<Vec<_>>(), ["energy-pkg"]);
    assert_eq!(power.units["energy-pkg"], "Joules");
    let scale: f64 = "2.3283064365386962890625e-10".parse().unwrap();
    assert_eq!(power.scales["energy-pkg"], scale);
    assert_eq!(power.scales.len(), 1);
    assert!(!power.is_core());
}

#[test]
fn unreadable_entries_are_skipped() {
    let fake = FakeSysfs::new();
    fake.pmu("good", 7)
        .format("event", "config:0-7")
        .format("broken", "config9:0");
    fake.pmu("notype", 1).remove("type");
    fake.pmu("badtype", 1).file("type", "four\n");
    fake.file("stray-file", "x");
    let sysfs = fake.sysfs();
    let pmus = sysfs.pmus();
    assert_eq!(pmus.len(), 1);
    assert_eq!(pmus[0].name, "good");
    assert_eq!(pmus[0].formats.len(), 1);
    assert_eq!(sysfs.pmu("notype"), None);
    assert_eq!(sysfs.pmu("stray-file"), None);
}

#[test]
fn pmu_names_cannot_escape_the_root() {
    let fake = FakeSysfs::intel();
    let sysfs = Sysfs::new(fake.root().join("cpu").join("format"));
    // `<root>/..` has a `type` file, but `..` is not a PMU name.
    assert_eq!(sysfs.pmu(".."), None);
    let sysfs = fake.sysfs();
    for name in ["", ".", "..", "cpu/format", "cpu\0"] {
        assert_eq!(sysfs.pmu(name), None, "{name:?}");
    }
}

#[test]
fn missing_root_has_no_pmus() {
    let sysfs = Sysfs::new("/nonexistent/perfbench/sysfs");
    assert!(sysfs.pmus().is_empty());
    assert!(sysfs.core_pmus().is_empty());
    assert_eq!(sysfs.pmu("cpu"), None);
    assert_eq!(sysfs.root(), Path::new("/nonexistent/perfbench/sysfs"));
}

#[test]
fn core_rule() {
    let fake = FakeSysfs::new();
    fake.pmu("cpu", 4);
    fake.pmu("armv9_cortex_a710", 9);
    fake.pmu("riscv_pmu", 11).cpus("0-7");
    fake.pmu("software", 1).cpus("0-7");
    fake.pmu("uncore_imc_0", 12).file("cpumask", "0");
    fake.pmu("msr", 13);
    let core: Vec<_> = fake
        .sysfs()
        .core_pmus()
        .into_iter()
        .map(|p| p.name)
        .collect();
    assert_eq!(core, ["armv9_cortex_a710", "cpu", "riscv_pmu"]);
}

#[test]
fn system_tree_lists_software() {
    let sysfs = Sysfs::system();
    assert_eq!(sysfs.root(), Path::new(SYSTEM_ROOT));
    let pmus = sysfs.pmus();
    let software = pmus
        .iter()
        .find(|p| p.name == "software")
        .expect("software PMU");
    assert_eq!(software.type_, crate::sys::raw::PERF_TYPE_SOFTWARE);
    assert!(pmus.windows(2).all(|w| w[0].name < w[1].name));
    assert!(sysfs.core_pmus().iter().all(|p| p.name != "software"));
}
