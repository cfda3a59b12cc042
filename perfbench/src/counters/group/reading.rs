//! [`Reading`]: one read of a group, its members' counts and its times, and the scaling of a
//! multiplexed count.

/// One reading of a group: raw counts in the group's event order, plus the times the kernel
/// reports for the group.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reading {
    /// Raw (unscaled) counts, one per event, in the group's order.
    pub values: Vec<u64>,
    /// Nanoseconds the group was enabled.
    pub time_enabled: u64,
    /// Nanoseconds the group was actually on the PMU.
    pub time_running: u64,
}

impl Reading {
    /// A reading sized for `n` events.
    ///
    /// ```
    /// use perfbench::counters::Reading;
    ///
    /// let r = Reading::with_len(3);
    /// assert_eq!(r.values, [0, 0, 0]);
    /// assert!(!r.multiplexed());
    /// ```
    pub fn with_len(n: usize) -> Reading {
        Reading {
            values: vec![0; n],
            ..Reading::default()
        }
    }

    /// The group was time-sliced with other groups: counts cover only part of the enabled time.
    ///
    /// ```
    /// use perfbench::counters::Reading;
    ///
    /// let mut r = Reading::with_len(1);
    /// (r.time_enabled, r.time_running) = (1000, 400); // on the PMU 40% of the time
    /// assert!(r.multiplexed());
    /// ```
    pub fn multiplexed(&self) -> bool {
        self.time_running < self.time_enabled
    }

    /// The group was enabled but never ran: its counts are meaningless zeros.
    ///
    /// ```
    /// use perfbench::counters::Reading;
    ///
    /// let mut r = Reading::with_len(1);
    /// (r.time_enabled, r.time_running) = (1000, 0);
    /// assert!(r.never_ran());
    /// assert_eq!(r.scaled(0), None);
    /// ```
    pub fn never_ran(&self) -> bool {
        self.time_enabled > 0 && self.time_running == 0
    }

    /// Count `i` scaled to the whole enabled time (`value * enabled / running`), or the raw count
    /// when the group was not multiplexed. `None` when the group never ran.
    ///
    /// ```
    /// use perfbench::counters::Reading;
    ///
    /// let mut r = Reading::with_len(1);
    /// r.values[0] = 300;
    /// (r.time_enabled, r.time_running) = (1000, 500); // counted half of the time
    /// assert_eq!(r.scaled(0), Some(600.0));
    /// assert_eq!(r.scaled(1), None);
    /// ```
    pub fn scaled(&self, i: usize) -> Option<f64> {
        let v = *self.values.get(i)? as f64;
        if !self.multiplexed() {
            return Some(v);
        }
        if self.time_running == 0 {
            return None;
        }
        Some(v * self.time_enabled as f64 / self.time_running as f64)
    }
}
