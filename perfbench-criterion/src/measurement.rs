//! criterion's `Measurement` trait and its wall-clock measurement.
//!
//! perfbench measures its own counters (wall time among them) whatever measurement a
//! [`Criterion`](crate::Criterion) names: `with_measurement` is accepted so that a suite with a
//! custom measurement compiles. With [`WallTime`], the time an `iter_custom` routine returns is
//! the benchmark's wall time; with a custom measurement, the values its `iter_custom` routines
//! return are not used (the counters bracket the routine's whole call instead).

use std::time::{Duration, Instant};

use crate::Throughput;

/// A quantity criterion measures: the trait's shape is criterion's, so custom measurements
/// compile. perfbench reads its counters instead.
pub trait Measurement {
    /// What [`Measurement::start`] returns and [`Measurement::end`] takes.
    type Intermediate;
    /// A measured value.
    type Value;
    /// Starts a measurement.
    fn start(&self) -> Self::Intermediate;
    /// Ends it.
    fn end(&self, i: Self::Intermediate) -> Self::Value;
    /// The sum of two values.
    fn add(&self, v1: &Self::Value, v2: &Self::Value) -> Self::Value;
    /// The value 0.
    fn zero(&self) -> Self::Value;
    /// A value as a number.
    fn to_f64(&self, value: &Self::Value) -> f64;
    /// How values print.
    fn formatter(&self) -> &dyn ValueFormatter;

    /// Not criterion's: for a measurement whose values are times (`WallTime`), how a value
    /// becomes a [`Duration`], so that `iter_custom`'s returned value is the benchmark's wall
    /// time. A custom measurement leaves it out: its `iter_custom` routines are bracketed whole.
    #[doc(hidden)]
    fn __as_duration() -> Option<fn(&Self::Value) -> Duration>
    where
        Self: Sized,
    {
        None
    }
}

/// How a measurement's values print (criterion's trait, for custom measurements).
pub trait ValueFormatter {
    /// A value with its unit.
    fn format_value(&self, value: f64) -> String {
        let mut values = [value];
        let unit = self.scale_values(value, &mut values);
        format!("{:>6} {}", short(values[0]), unit)
    }

    /// A throughput with its unit.
    fn format_throughput(&self, throughput: &Throughput, value: f64) -> String {
        let mut values = [value];
        let unit = self.scale_throughputs(value, throughput, &mut values);
        format!("{:>6} {}", short(values[0]), unit)
    }

    /// Scales `values` for display around `typical_value`; returns the unit.
    fn scale_values(&self, typical_value: f64, values: &mut [f64]) -> &'static str;

    /// Scales `values` into throughputs; returns the unit.
    fn scale_throughputs(
        &self,
        typical_value: f64,
        throughput: &Throughput,
        values: &mut [f64],
    ) -> &'static str;

    /// Scales `values` for machine-readable output; returns the unit.
    fn scale_for_machines(&self, values: &mut [f64]) -> &'static str;
}

/// Four significant digits, as criterion prints.
fn short(n: f64) -> String {
    if n < 10.0 {
        format!("{n:.4}")
    } else if n < 100.0 {
        format!("{n:.3}")
    } else if n < 1000.0 {
        format!("{n:.2}")
    } else {
        format!("{n:.1}")
    }
}

/// Wall-clock time, criterion's default measurement. perfbench measures wall time as one of
/// its counters.
#[derive(Clone, Copy, Debug, Default)]
pub struct WallTime;

impl Measurement for WallTime {
    type Intermediate = Instant;
    type Value = Duration;

    fn start(&self) -> Instant {
        Instant::now()
    }

    fn end(&self, i: Instant) -> Duration {
        i.elapsed()
    }

    fn add(&self, v1: &Duration, v2: &Duration) -> Duration {
        *v1 + *v2
    }

    fn zero(&self) -> Duration {
        Duration::ZERO
    }

    fn to_f64(&self, value: &Duration) -> f64 {
        value.as_nanos() as f64
    }

    fn formatter(&self) -> &dyn ValueFormatter {
        &DurationFormatter
    }

    fn __as_duration() -> Option<fn(&Duration) -> Duration> {
        Some(|d| *d)
    }
}

/// Nanoseconds, scaled to ns, µs, ms or s.
struct DurationFormatter;

impl ValueFormatter for DurationFormatter {
    fn scale_values(&self, ns: f64, values: &mut [f64]) -> &'static str {
        let (factor, unit) = if ns < 1e3 {
            (1.0, "ns")
        } else if ns < 1e6 {
            (1e-3, "µs")
        } else if ns < 1e9 {
            (1e-6, "ms")
        } else {
            (1e-9, "s")
        };
        values.iter_mut().for_each(|v| *v *= factor);
        unit
    }

    fn scale_throughputs(&self, _typical: f64, t: &Throughput, values: &mut [f64]) -> &'static str {
        let (per, unit) = match *t {
            Throughput::Bytes(n) | Throughput::BytesDecimal(n) => (n as f64, "B/s"),
            Throughput::Bits(n) => (n as f64, "bit/s"),
            Throughput::Elements(n) | Throughput::ElementsAndBytes { elements: n, .. } => {
                (n as f64, "elem/s")
            }
        };
        values.iter_mut().for_each(|v| *v = per * 1e9 / *v);
        unit
    }

    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wall_time_adds_and_prints_as_criterion_does() {
        let m = WallTime;
        let sum = m.add(&Duration::from_nanos(1500), &m.zero());
        assert_eq!(m.to_f64(&sum), 1500.0);
        assert_eq!(m.formatter().format_value(1500.0), "1.5000 µs");
        let rate = m
            .formatter()
            .format_throughput(&Throughput::Elements(1000), 1e3);
        assert_eq!(rate, "1000000000.0 elem/s");
    }
}
