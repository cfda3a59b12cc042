//! The few words of JSON the messages are written in, by hand (a benchmark build compiles no
//! JSON library), and, with the `serde` feature, what reading them back needs beyond serde's
//! derives: non-finite floats written as `null`, and counters keyed by name in their order.

use crate::harness::entry::Throughput;

/// `items` written by `each`, separated by commas (the brackets are the caller's).
pub(crate) fn push_list<T>(out: &mut String, items: &[T], each: impl Fn(&mut String, &T)) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        each(out, item);
    }
}

/// `{"id": ..., "group": ..., "name": ..., "params": ...` of a benchmark (the object left open
/// for more members).
pub(crate) fn push_identity(
    out: &mut String,
    id: &str,
    group: &str,
    name: &str,
    params: Option<&str>,
) {
    out.push_str("{\"id\":");
    push_str(out, id);
    out.push_str(",\"group\":");
    push_str(out, group);
    out.push_str(",\"name\":");
    push_str(out, name);
    out.push_str(",\"params\":");
    push_opt_str(out, params);
}

/// `s` as a JSON string: quotes, backslashes and control characters escaped, everything else
/// as it is (JSON text is UTF-8).
pub(crate) fn push_str(out: &mut String, s: &str) {
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A list of strings, `["a","b"]`.
pub(crate) fn push_strs<S: AsRef<str>>(out: &mut String, items: &[S]) {
    out.push('[');
    push_list(out, items, |out, s| push_str(out, s.as_ref()));
    out.push(']');
}

/// `t` as the report writes it (`{"bytes": N}`, `{"elements": N}`), or `null`.
pub(crate) fn push_throughput(out: &mut String, t: Option<Throughput>) {
    match t {
        None => out.push_str("null"),
        Some(Throughput::Bytes(n)) => out.push_str(&format!("{{\"bytes\":{n}}}")),
        Some(Throughput::Elements(n)) => out.push_str(&format!("{{\"elements\":{n}}}")),
    }
}

/// `s` as a JSON string, or `null`.
pub(crate) fn push_opt_str(out: &mut String, s: Option<&str>) {
    match s {
        Some(s) => push_str(out, s),
        None => out.push_str("null"),
    }
}

/// `v` as a JSON number that reads back as the same `f64` (Rust's shortest round-trip form),
/// or `null` when it is not finite (JSON has no NaN or infinity).
pub(crate) fn push_f64(out: &mut String, v: f64) {
    if v.is_finite() {
        out.push_str(&format!("{v:?}"));
    } else {
        out.push_str("null");
    }
}

/// Reading back what [`push_f64`] wrote: `null` is NaN.
#[cfg(feature = "serde")]
pub(crate) mod nullable {
    use serde::{Deserialize, Deserializer};

    /// One float, `null` as NaN.
    pub(crate) fn f64<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
    }

    /// A list of floats, each `null` as NaN.
    pub(crate) fn vec<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
        Ok(Vec::<Option<f64>>::deserialize(d)?
            .into_iter()
            .map(|v| v.unwrap_or(f64::NAN))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_escape_what_json_needs_and_keep_the_rest() {
        let mut out = String::new();
        push_str(&mut out, "a\"b\\c\u{1}\u{1f}é€😀\u{7f}");
        assert_eq!(out, "\"a\\\"b\\\\c\\u0001\\u001fé€😀\u{7f}\"");
    }

    #[test]
    fn floats_are_numbers_or_null() {
        for (v, text) in [
            (1.0, "1.0"),
            (-0.0, "-0.0"),
            (1e300, "1e300"),
            (1.5e-7, "1.5e-7"),
            (f64::NAN, "null"),
            (f64::INFINITY, "null"),
        ] {
            let mut out = String::new();
            push_f64(&mut out, v);
            assert_eq!(out, text, "{v}");
        }
    }
}
