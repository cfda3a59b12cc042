//! serde helpers for the fields of the JSON report that JSON cannot hold as they are.
//!
//! - [`nullable`]: a float that may be non-finite. serde_json writes NaN and the infinities as
//!   `null` (JSON has no such numbers); these functions read `null` back as NaN, so a report
//!   with a NaN in it reads back instead of failing.
//! - [`keyed`]: a `Vec` of named things written as a JSON object keyed by name, in the vector's
//!   order (counters in the order the user asked for them), keeping the first of a repeated name
//!   both when writing and when reading.
//!
//! This module knows nothing of perfbench's types: [`stats`](crate::stats) and
//! [`model`](crate::model) both use it.

/// `f64` fields that serde_json writes as `null` when non-finite: `#[serde(with = "nullable")]`.
pub(crate) mod nullable {
    use serde::{Deserialize, Deserializer, Serializer};

    /// Writes the float (serde_json turns a non-finite one into `null`).
    pub(crate) fn serialize<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(*x)
    }

    /// Reads a number, or `null` as NaN.
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
    }

    /// The default of a missing field: NaN (nothing known).
    pub(crate) fn nan() -> f64 {
        f64::NAN
    }

    /// `Vec<f64>` fields whose elements may be `null`: `#[serde(with = "nullable::vec")]`.
    pub(crate) mod vec {
        use serde::{Deserialize, Deserializer, Serialize, Serializer};

        /// Writes the floats (non-finite ones as `null`).
        pub(crate) fn serialize<S: Serializer>(xs: &[f64], s: S) -> Result<S::Ok, S::Error> {
            xs.serialize(s)
        }

        /// Reads numbers, `null` as NaN.
        pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
            let xs = Vec::<Option<f64>>::deserialize(d)?;
            Ok(xs.into_iter().map(|x| x.unwrap_or(f64::NAN)).collect())
        }
    }
}

/// A named thing in a [`keyed`] object: the name is the key, [`Keyed::value`] the value.
pub(crate) trait Keyed: Sized {
    /// What the key maps to.
    type Value;
    /// The key.
    fn key(&self) -> &str;
    /// The value written under the key.
    fn value(&self) -> &Self::Value;
    /// Rebuilds the thing from a key and its value.
    fn join(key: String, value: Self::Value) -> Self;
}

/// `(name, value)` pairs, as in `machine.sources`.
impl<V> Keyed for (String, V) {
    type Value = V;
    fn key(&self) -> &str {
        &self.0
    }
    fn value(&self) -> &V {
        &self.1
    }
    fn join(key: String, value: V) -> Self {
        (key, value)
    }
}

/// A `Vec` of [`Keyed`] things as a JSON object in the vector's order:
/// `#[serde(with = "keyed")]`. The first of a repeated name wins, when writing and reading.
pub(crate) mod keyed {
    use super::Keyed;
    use serde::de::{MapAccess, Visitor};
    use serde::ser::SerializeMap;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::fmt;
    use std::marker::PhantomData;

    /// Writes `{"name": value, ...}`, skipping repeated names.
    pub(crate) fn serialize<S, T>(items: &[T], s: S) -> Result<S::Ok, S::Error>
    where
        S: Serializer,
        T: Keyed,
        T::Value: Serialize,
    {
        let first: Vec<&T> = items
            .iter()
            .enumerate()
            .filter(|(i, t)| !items[..*i].iter().any(|u| u.key() == t.key()))
            .map(|(_, t)| t)
            .collect();
        let mut map = s.serialize_map(Some(first.len()))?;
        for t in first {
            map.serialize_entry(t.key(), t.value())?;
        }
        map.end()
    }

    /// Reads `{"name": value, ...}` in document order, keeping the first of a repeated name.
    pub(crate) fn deserialize<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
    where
        D: Deserializer<'de>,
        T: Keyed,
        T::Value: Deserialize<'de>,
    {
        struct V<T>(PhantomData<T>);
        impl<'de, T> Visitor<'de> for V<T>
        where
            T: Keyed,
            T::Value: Deserialize<'de>,
        {
            type Value = Vec<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object keyed by name")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vec<T>, A::Error> {
                let mut out: Vec<T> = Vec::new();
                while let Some((key, value)) = map.next_entry::<String, T::Value>()? {
                    if !out.iter().any(|t| t.key() == key) {
                        out.push(T::join(key, value));
                    }
                }
                Ok(out)
            }
        }
        d.deserialize_map(V(PhantomData))
    }
}
