//! A JSON value whose objects keep their keys in the order written, so that Elle's result map
//! comes out as Elle prints it (`valid?` first, an operation's `index` before its `value`)
//! without turning on serde_json's `preserve_order` for the whole workspace.

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

/// An ordered JSON value.
#[derive(Debug, Clone, PartialEq)]
pub enum J {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

impl J {
    /// An object from `(key, value)` pairs, in order.
    pub fn obj<K: Into<String>>(pairs: impl IntoIterator<Item = (K, J)>) -> J {
        J::Obj(pairs.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }

    pub fn str(s: impl Into<String>) -> J {
        J::Str(s.into())
    }

    /// The value of a key of an object.
    pub fn get(&self, key: &str) -> Option<&J> {
        match self {
            J::Obj(kv) => kv.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Pretty-printed JSON text (two-space indent).
    pub fn to_pretty(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Compact JSON text.
    pub fn to_compact(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

impl From<bool> for J {
    fn from(b: bool) -> J {
        J::Bool(b)
    }
}

impl From<i64> for J {
    fn from(i: i64) -> J {
        J::Int(i)
    }
}

impl From<u64> for J {
    fn from(i: u64) -> J {
        J::Int(i64::try_from(i).unwrap_or(i64::MAX))
    }
}

impl From<usize> for J {
    fn from(i: usize) -> J {
        J::Int(i64::try_from(i).unwrap_or(i64::MAX))
    }
}

impl From<&str> for J {
    fn from(s: &str) -> J {
        J::Str(s.to_string())
    }
}

impl From<String> for J {
    fn from(s: String) -> J {
        J::Str(s)
    }
}

impl From<Vec<J>> for J {
    fn from(v: Vec<J>) -> J {
        J::Arr(v)
    }
}

impl From<&serde_json::Value> for J {
    fn from(v: &serde_json::Value) -> J {
        match v {
            serde_json::Value::Null => J::Null,
            serde_json::Value::Bool(b) => J::Bool(*b),
            serde_json::Value::Number(n) => {
                n.as_i64().map(J::Int).unwrap_or_else(|| J::Float(n.as_f64().unwrap_or(0.0)))
            }
            serde_json::Value::String(s) => J::Str(s.clone()),
            serde_json::Value::Array(a) => J::Arr(a.iter().map(J::from).collect()),
            serde_json::Value::Object(m) => J::Obj(m.iter().map(|(k, v)| (k.clone(), J::from(v))).collect()),
        }
    }
}

impl Serialize for J {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            J::Null => s.serialize_unit(),
            J::Bool(b) => s.serialize_bool(*b),
            J::Int(i) => s.serialize_i64(*i),
            J::Float(f) => s.serialize_f64(*f),
            J::Str(x) => s.serialize_str(x),
            J::Arr(a) => {
                let mut seq = s.serialize_seq(Some(a.len()))?;
                for x in a {
                    seq.serialize_element(x)?;
                }
                seq.end()
            }
            J::Obj(kv) => {
                let mut m = s.serialize_map(Some(kv.len()))?;
                for (k, v) in kv {
                    m.serialize_entry(k, v)?;
                }
                m.end()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::J;

    #[test]
    fn objects_keep_their_order() {
        let j = J::obj([("valid?", J::Bool(false)), ("anomaly-types", J::Arr(vec!["G0".into()])), ("a", J::Null)]);
        assert_eq!(j.to_compact(), r#"{"valid?":false,"anomaly-types":["G0"],"a":null}"#);
        assert_eq!(j.get("a"), Some(&J::Null));
    }
}
