//! Counts a region of code with perfbench's counters, without the harness.
//!
//! `cargo run --release --example counters -- [EVENTS] [PAGES]`
//! (default events: page-faults,task-clock,context-switches,wall-time; default pages: 100).
//! The region maps PAGES fresh pages and touches each once, so `page-faults` reads PAGES.

use std::process::ExitCode;

use perfbench::counters::{wall_time_ns, Counters, GroupOptions, Reading};
use perfbench::events::{parse_list, Sysfs};
use perfbench::sys::AnonMapping;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let list = args
        .next()
        .unwrap_or_else(|| "page-faults,task-clock,context-switches,wall-time".to_owned());
    let pages: usize = match args.next().map(|p| p.parse()) {
        None => 100,
        Some(Ok(p)) => p,
        Some(Err(e)) => {
            eprintln!("error: PAGES must be a whole number: {e}");
            return ExitCode::from(2);
        }
    };
    let events = match parse_list(&list, &Sysfs::system()) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let mut counters = match Counters::open(&events, &GroupOptions::default()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}\n(run `perfbench doctor` for this machine's details)");
            return ExitCode::from(2);
        }
    };
    let wall = counters.wall_time();
    for group in counters.groups_mut() {
        let mut reading = Reading::with_len(group.len());
        let result = (|| {
            let mut region = AnonMapping::new(pages).map_err(|e| e.to_string())?;
            group.reset().map_err(|e| e.to_string())?;
            group.enable().map_err(|e| e.to_string())?;
            region.touch_every_page();
            group.disable().map_err(|e| e.to_string())?;
            group.read(&mut reading).map_err(|e| e.to_string())
        })();
        let source = match result {
            Ok(s) => s,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        };
        for (i, event) in group.events().iter().enumerate() {
            let flag = if reading.multiplexed() {
                " (multiplexed, scaled)"
            } else {
                ""
            };
            let value = reading.scaled(i).unwrap_or(f64::NAN);
            println!(
                "{:<20} {value:>14.0} {:<5} via {source}{flag}",
                event.name,
                event.unit()
            );
        }
    }
    if wall {
        let mut region = AnonMapping::new(pages).expect("mmap");
        let t0 = wall_time_ns();
        region.touch_every_page();
        let ns = wall_time_ns() - t0;
        println!("{:<20} {ns:>14} {:<5} via clock", "wall-time", "ns");
    }
    ExitCode::SUCCESS
}
