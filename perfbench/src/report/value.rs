//! A small JSON document model: [`Value`], a pretty writer and a strict parser (RFC 8259).
//!
//! The JSON report needs objects whose keys keep the order they were written in (counters in
//! the order the user asked for them), a writer that never emits invalid JSON for non-finite
//! floats, and a reader that reports where a malformed file went wrong. A hundred lines of
//! writer and parser do that without a serialisation framework in every downstream build.
//!
//! Nothing here panics on any input: nesting deeper than [`MAX_DEPTH`] is a parse error (not a
//! stack overflow), and every byte position is checked.

use std::fmt::Write as _;

/// The deepest nesting of arrays and objects the parser accepts. A report nests 6 levels deep.
pub(crate) const MAX_DEPTH: usize = 128;

/// A JSON value. Objects are key/value pairs in document order (duplicate keys are kept; lookups
/// return the first).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number written without fraction or exponent that fits a `u64`.
    UInt(u64),
    /// A negative number written without fraction or exponent that fits an `i64`.
    Int(i64),
    /// Any other number. The writer turns a non-finite float into `null`.
    Float(f64),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Value>),
    /// An object, in document order.
    Object(Vec<(String, Value)>),
}

impl Value {
    /// A float, or `null` when it is `None`.
    pub(crate) fn opt_float(x: Option<f64>) -> Value {
        x.map_or(Value::Null, Value::Float)
    }

    /// A string, or `null` when it is `None`.
    pub(crate) fn opt_str(s: Option<&str>) -> Value {
        s.map_or(Value::Null, |s| Value::String(s.to_owned()))
    }

    /// The member `key` of an object (the first, if repeated); `None` for other values.
    pub(crate) fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The number as an `f64` (integers converted), `None` for other values.
    pub(crate) fn as_f64(&self) -> Option<f64> {
        match *self {
            Value::UInt(u) => Some(u as f64),
            Value::Int(i) => Some(i as f64),
            Value::Float(x) => Some(x),
            _ => None,
        }
    }

    /// What kind of value this is, for error messages ("a string", "an array").
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::UInt(_) | Value::Int(_) | Value::Float(_) => "a number",
            Value::String(_) => "a string",
            Value::Array(_) => "an array",
            Value::Object(_) => "an object",
        }
    }

    /// Pretty JSON: two-space indentation, one member per line, arrays of scalars on one line
    /// (per-sample arrays stay readable), no trailing newline.
    pub(crate) fn to_pretty(&self) -> String {
        let mut out = String::new();
        write_value(&mut out, self, 0);
        out
    }
}

fn is_scalar(v: &Value) -> bool {
    !matches!(v, Value::Array(_) | Value::Object(_))
}

fn indent(out: &mut String, level: usize) {
    for _ in 0..level {
        out.push_str("  ");
    }
}

fn write_value(out: &mut String, v: &Value, level: usize) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::UInt(u) => {
            let _ = write!(out, "{u}");
        }
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Float(x) => write_float(out, *x),
        Value::String(s) => write_string(out, s),
        Value::Array(items) if items.is_empty() => out.push_str("[]"),
        Value::Array(items) if items.iter().all(is_scalar) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_value(out, item, level);
            }
            out.push(']');
        }
        Value::Array(items) => {
            out.push_str("[\n");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(",\n");
                }
                indent(out, level + 1);
                write_value(out, item, level + 1);
            }
            out.push('\n');
            indent(out, level);
            out.push(']');
        }
        Value::Object(members) if members.is_empty() => out.push_str("{}"),
        Value::Object(members) => {
            out.push_str("{\n");
            for (i, (k, v)) in members.iter().enumerate() {
                if i > 0 {
                    out.push_str(",\n");
                }
                indent(out, level + 1);
                write_string(out, k);
                out.push_str(": ");
                write_value(out, v, level + 1);
            }
            out.push('\n');
            indent(out, level);
            out.push('}');
        }
    }
}

/// Finite floats in Rust's shortest round-trip form (`Debug`: `1.0`, `0.1`, `1e-7`, `1e21`,
/// all valid JSON numbers); NaN and infinities as `null`, as serde_json does.
fn write_float(out: &mut String, x: f64) {
    if x.is_finite() {
        let _ = write!(out, "{x:?}");
    } else {
        out.push_str("null");
    }
}

fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Where and why parsing failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    /// 1-based line.
    pub(crate) line: usize,
    /// 1-based column, in characters.
    pub(crate) column: usize,
    /// What was expected or found.
    pub(crate) message: String,
}

/// Parses one JSON document (surrounding whitespace allowed, nothing else).
pub(crate) fn parse(text: &str) -> Result<Value, SyntaxError> {
    let mut p = Parser {
        text,
        bytes: text.as_bytes(),
        pos: 0,
    };
    p.skip_ws();
    let v = p.value(0)?;
    p.skip_ws();
    if p.pos < p.bytes.len() {
        return Err(p.error("unexpected text after the end of the document"));
    }
    Ok(v)
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn error(&self, message: impl Into<String>) -> SyntaxError {
        let pos = self.pos.min(self.bytes.len());
        // `pos` may sit inside a multi-byte character only transiently; back up to a boundary.
        let mut start = pos;
        while !self.text.is_char_boundary(start) {
            start -= 1;
        }
        let before = &self.text[..start];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        SyntaxError {
            line,
            column,
            message: message.into(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn found(&self) -> String {
        match self
            .text
            .get(self.pos..)
            .and_then(|rest| rest.chars().next())
        {
            None => "the end of the input (truncated?)".to_owned(),
            Some(c) => format!("`{}`", c.escape_debug()),
        }
    }

    fn expect_literal(&mut self, word: &str, v: Value) -> Result<Value, SyntaxError> {
        if self.bytes[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(v)
        } else {
            Err(self.error(format!("expected a value, found {}", self.found())))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, SyntaxError> {
        match self.peek() {
            Some(b'{') => self.object(depth + 1),
            Some(b'[') => self.array(depth + 1),
            Some(b'"') => self.string().map(Value::String),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b't') => self.expect_literal("true", Value::Bool(true)),
            Some(b'f') => self.expect_literal("false", Value::Bool(false)),
            Some(b'n') => self.expect_literal("null", Value::Null),
            _ => Err(self.error(format!("expected a value, found {}", self.found()))),
        }
    }

    fn check_depth(&self, depth: usize) -> Result<(), SyntaxError> {
        if depth > MAX_DEPTH {
            Err(self.error(format!("nested more than {MAX_DEPTH} levels deep")))
        } else {
            Ok(())
        }
    }

    fn array(&mut self, depth: usize) -> Result<Value, SyntaxError> {
        self.check_depth(depth)?;
        self.pos += 1; // `[`
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(Value::Array(items));
        }
        loop {
            self.skip_ws();
            items.push(self.value(depth)?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Value::Array(items));
                }
                _ => {
                    return Err(self.error(format!(
                        "expected `,` or `]` in an array, found {}",
                        self.found()
                    )))
                }
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Value, SyntaxError> {
        self.check_depth(depth)?;
        self.pos += 1; // `{`
        let mut members = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(Value::Object(members));
        }
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(self.error(format!(
                    "expected a member name (a string), found {}",
                    self.found()
                )));
            }
            let key = self.string()?;
            self.skip_ws();
            if self.peek() != Some(b':') {
                return Err(self.error(format!(
                    "expected `:` after member name, found {}",
                    self.found()
                )));
            }
            self.pos += 1;
            self.skip_ws();
            let v = self.value(depth)?;
            members.push((key, v));
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Value::Object(members));
                }
                _ => {
                    return Err(self.error(format!(
                        "expected `,` or `}}` in an object, found {}",
                        self.found()
                    )))
                }
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, SyntaxError> {
        let digits = self
            .bytes
            .get(self.pos..self.pos + 4)
            .filter(|d| d.iter().all(u8::is_ascii_hexdigit))
            .ok_or_else(|| self.error("expected four hex digits after `\\u`"))?;
        let mut v = 0u32;
        for &d in digits {
            // Checked above: every byte is a hex digit.
            v = v * 16 + (d as char).to_digit(16).unwrap_or(0);
        }
        self.pos += 4;
        Ok(v)
    }

    fn string(&mut self) -> Result<String, SyntaxError> {
        self.pos += 1; // `"`
        let mut out = String::new();
        loop {
            let start = self.pos;
            while let Some(b) = self.peek() {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            // The loop stops only at ASCII bytes, which are char boundaries of a `&str`.
            out.push_str(self.text.get(start..self.pos).unwrap_or_default());
            match self.peek() {
                None => return Err(self.error("unterminated string (truncated?)")),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let esc = self.peek();
                    self.pos += 1;
                    match esc {
                        Some(b'"') => out.push('"'),
                        Some(b'\\') => out.push('\\'),
                        Some(b'/') => out.push('/'),
                        Some(b'b') => out.push('\u{08}'),
                        Some(b'f') => out.push('\u{0c}'),
                        Some(b'n') => out.push('\n'),
                        Some(b'r') => out.push('\r'),
                        Some(b't') => out.push('\t'),
                        Some(b'u') => {
                            let hi = self.hex4()?;
                            let c = if (0xd800..0xdc00).contains(&hi) {
                                if !self.bytes[self.pos..].starts_with(b"\\u") {
                                    return Err(self.error("unpaired surrogate in `\\u` escape"));
                                }
                                self.pos += 2;
                                let lo = self.hex4()?;
                                if !(0xdc00..0xe000).contains(&lo) {
                                    return Err(self.error("unpaired surrogate in `\\u` escape"));
                                }
                                char::from_u32(0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00))
                            } else {
                                char::from_u32(hi)
                            };
                            out.push(
                                c.ok_or_else(|| self.error("unpaired surrogate in `\\u` escape"))?,
                            );
                        }
                        _ => {
                            self.pos -= 1;
                            return Err(self.error("invalid escape in a string"));
                        }
                    }
                }
                Some(_) => return Err(self.error("control character inside a string")),
            }
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> Result<Value, SyntaxError> {
        let start = self.pos;
        let negative = self.peek() == Some(b'-');
        if negative {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.error("expected a digit in a number")),
        }
        let mut integer = true;
        if self.peek() == Some(b'.') {
            integer = false;
            self.pos += 1;
            if self.digits() == 0 {
                return Err(self.error("expected a digit after `.` in a number"));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            integer = false;
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(self.error("expected a digit in a number's exponent"));
            }
        }
        // Only ASCII was consumed since `start`.
        let literal = self.text.get(start..self.pos).unwrap_or_default();
        if integer {
            if negative {
                if let Ok(i) = literal.parse::<i64>() {
                    return Ok(Value::Int(i));
                }
            } else if let Ok(u) = literal.parse::<u64>() {
                return Ok(Value::UInt(u));
            }
        }
        match literal.parse::<f64>() {
            // `1e999` parses to infinity: out of range for a JSON number we can use.
            Ok(x) if x.is_finite() => Ok(Value::Float(x)),
            _ => {
                self.pos = start;
                Err(self.error(format!("number `{literal}` is out of range")))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(v: &Value) -> Value {
        parse(&v.to_pretty()).unwrap()
    }

    #[test]
    fn writes_and_reads_back_every_kind() {
        let v = Value::Object(vec![
            ("z".into(), Value::Null),
            ("a".into(), Value::Bool(true)),
            ("n".into(), Value::UInt(u64::MAX)),
            ("i".into(), Value::Int(i64::MIN)),
            ("f".into(), Value::Float(-1.5e-7)),
            ("big".into(), Value::Float(1e300)),
            ("s".into(), Value::String("q\"\\\n\t\u{1}µ😀".into())),
            (
                "arr".into(),
                Value::Array(vec![Value::Float(0.1), Value::UInt(2)]),
            ),
            (
                "nested".into(),
                Value::Array(vec![Value::Object(vec![]), Value::Array(vec![])]),
            ),
        ]);
        assert_eq!(roundtrip(&v), v);
        let text = v.to_pretty();
        // Keys stay in the order written.
        assert!(text.find("\"z\"").unwrap() < text.find("\"a\"").unwrap());
        assert!(text.contains("\"arr\": [0.1, 2]"), "{text}");
    }

    #[test]
    fn non_finite_floats_become_null() {
        let v = Value::Array(vec![
            Value::Float(f64::NAN),
            Value::Float(f64::INFINITY),
            Value::Float(f64::NEG_INFINITY),
            Value::Float(-0.0),
        ]);
        assert_eq!(v.to_pretty(), "[null, null, null, -0.0]");
    }

    #[test]
    fn floats_round_trip_exactly() {
        for x in [
            0.1,
            1.0 / 3.0,
            1e-300,
            5e-324,
            f64::MAX,
            123456789.123,
            1e16,
            1e21,
        ] {
            let text = Value::Float(x).to_pretty();
            assert_eq!(parse(&text).unwrap().as_f64(), Some(x), "{text}");
        }
    }

    #[test]
    fn strict_grammar() {
        for bad in [
            "",
            "  ",
            "{",
            "[1,",
            "[1 2]",
            "{\"a\" 1}",
            "{\"a\":}",
            "{a:1}",
            "[01]",
            "[1.]",
            "[.5]",
            "[1e]",
            "[-]",
            "[+1]",
            "tru",
            "nul",
            "[1,]",
            "{\"a\":1,}",
            "\"abc",
            "\"\\x\"",
            "\"\\u12\"",
            "\"\\ud800\"",
            "\"\\udc00\"",
            "\"a\nb\"",
            "1 2",
            "[1e999]",
            "[NaN]",
            "[Infinity]",
        ] {
            assert!(parse(bad).is_err(), "accepted {bad:?}");
        }
        assert_eq!(parse(" [ ] ").unwrap(), Value::Array(vec![]));
        assert_eq!(
            parse("\"\\ud83d\\ude00\\u00b5\\/\"").unwrap(),
            Value::String("😀µ/".into())
        );
        assert_eq!(parse("-0").unwrap(), Value::Int(0));
        assert_eq!(
            parse("18446744073709551616").unwrap(),
            Value::Float(1.8446744073709552e19)
        );
    }

    #[test]
    fn errors_say_where() {
        let e = parse("{\n  \"a\": [1, 2\n}").unwrap_err();
        assert_eq!((e.line, e.column), (3, 1));
        assert!(e.message.contains("expected `,` or `]`"), "{e:?}");
        let e = parse("{\"µ\": ").unwrap_err();
        assert_eq!((e.line, e.column), (1, 7));
        assert!(e.message.contains("truncated"), "{e:?}");
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = "[".repeat(100_000);
        assert!(parse(&deep).unwrap_err().message.contains("nested"));
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(parse(&ok).is_ok());
    }
}
