//! YAML to JSON values, with a bound on what aliases expand to.
//!
//! The YAML parser expands every alias (`*name`) in place, and its own
//! guard allows alias jumps in proportion to the input's ordinary nodes,
//! so a file padded with ordinary nodes buys an exponential expansion (a
//! 40 KB "billion laughs" took 22 s and 1.6 GB before it was refused).
//! `kubectl get -o yaml` never writes aliases; hand-written manifests use a
//! few. Here every node built is counted against a budget that the text
//! itself sets: what it could hold written out ([`written_out`]), plus
//! [`ALIAS_NODES`] for what aliases add. Past it the parse stops at once,
//! in time and memory linear in the text.

use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// Nodes that aliases may add beyond what the text could hold written out:
/// room for any manifest's reuse of a few blocks, a few tens of MiB at most.
pub const ALIAS_NODES: usize = 250_000;

/// Why a text was not turned into values.
#[derive(Debug)]
pub enum YamlError {
    /// Not valid YAML, as the parser says (with its line when it knows).
    Syntax(serde_yaml_ng::Error),
    /// Aliases expanded past the budget; the line the parser had reached.
    Expands { line: Option<usize>, budget: usize },
}

impl YamlError {
    pub fn line(&self) -> Option<usize> {
        match self {
            YamlError::Syntax(e) => e.location().map(|l| l.line()),
            YamlError::Expands { line, .. } => *line,
        }
    }
}

impl fmt::Display for YamlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            YamlError::Syntax(e) => write!(f, "{e}"),
            YamlError::Expands { budget, line } => {
                write!(
                    f,
                    "its aliases (`*name`) expand to more than {budget} values, more than the file could hold written out (plus {ALIAS_NODES}); refused as an alias bomb"
                )?;
                match line {
                    Some(line) => write!(f, ", at line {line}"),
                    None => Ok(()),
                }
            }
        }
    }
}

/// The message the budget's error carries through the parser, to be told
/// from the parser's own.
const OVER_BUDGET: &str = "kubectl-reconcile: alias expansion over budget";

/// Every document of `text` (`---`-separated), empty ones as `Null`, with
/// the nodes of all of them counted against one budget.
pub fn parse(text: &str) -> Result<Vec<Value>, YamlError> {
    let budget = written_out(text).saturating_add(ALIAS_NODES);
    let left = Cell::new(budget);
    let mut docs = Vec::new();
    for doc in serde_yaml_ng::Deserializer::from_str(text) {
        match (Node { left: &left }).deserialize(doc) {
            Ok(v) => docs.push(v),
            Err(e) if e.to_string().contains(OVER_BUDGET) => {
                return Err(YamlError::Expands {
                    line: e.location().map(|l| l.line()),
                    budget,
                });
            }
            Err(e) => return Err(YamlError::Syntax(e)),
        }
    }
    Ok(docs)
}

/// The bytes that start a node of their own: `:`, `-`, `,`, `[`, `{`, `?`.
const INDICATORS: [u8; 6] = [b':', b'-', b',', b'[', 0x7b, b'?'];

/// An upper bound on the nodes `text` holds without aliases: every node
/// but a document's first needs an indicator of its own (`:` gives a key
/// and its value, `-`, `,`, `[`, `{`, `?` one or two), so three per such
/// byte, and one per document.
fn written_out(text: &str) -> usize {
    let indicators = text.bytes().filter(|b| INDICATORS.contains(b)).count();
    indicators
        .saturating_mul(3)
        .saturating_add(text.len() / 64 + 16)
}

/// A value, built as serde_json's own, each node paid for.
struct Node<'b> {
    left: &'b Cell<usize>,
}

impl Node<'_> {
    fn pay<E: de::Error>(&self) -> Result<(), E> {
        match self.left.get().checked_sub(1) {
            Some(n) => {
                self.left.set(n);
                Ok(())
            }
            None => Err(E::custom(OVER_BUDGET)),
        }
    }
}

impl<'de> DeserializeSeed<'de> for Node<'_> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Node<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        self.pay()?;
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        self.pay()?;
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        self.pay()?;
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        self.pay()?;
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        self.pay()?;
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        self.pay()?;
        Ok(Value::String(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        self.pay()?;
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        self.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        self.pay()?;
        let mut items = Vec::new();
        while let Some(v) = seq.next_element_seed(Node { left: self.left })? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        self.pay()?;
        let mut out = Map::new();
        // Keys as serde_json reads them: strings (a scalar key is read as
        // its text).
        while let Some(key) = map.next_key::<String>()? {
            self.pay()?;
            let value = map.next_value_seed(Node { left: self.left })?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Nine levels of nine aliases: 9^9 values once expanded.
    fn ladder(padding: usize) -> String {
        let mut text = String::from("pad:\n");
        for i in 0..padding {
            text.push_str(&format!("- {i}\n"));
        }
        text.push_str("a0: &a0 [x]\n");
        for level in 1..10 {
            let refs = vec![format!("*a{}", level - 1); 9].join(",");
            text.push_str(&format!("a{level}: &a{level} [{refs}]\n"));
        }
        text
    }

    #[test]
    fn an_alias_ladder_is_refused_at_once_whatever_its_padding() {
        for padding in [0, 20_000] {
            let text = ladder(padding);
            let started = std::time::Instant::now();
            let err = parse(&text).unwrap_err();
            // Unpadded, the parser's own guard may come first.
            let refused = err.to_string();
            assert!(
                refused.contains("alias bomb") || refused.contains("repetition limit"),
                "{refused}"
            );
            if padding > 0 {
                assert!(matches!(err, YamlError::Expands { .. }), "{err}");
            }
            assert!(
                started.elapsed() < std::time::Duration::from_secs(5),
                "{:?}",
                started.elapsed()
            );
        }
    }

    #[test]
    fn a_few_aliases_and_ordinary_yaml_are_read_as_before() {
        let text = "base: &b {image: nginx, ports: [80, 443]}\nweb: *b\napi: *b\n---\n---\nkind: Pod\nn: 1.5\nt: true\nz: null\n";
        let docs = parse(text).unwrap();
        assert_eq!(docs.len(), 3);
        assert_eq!(docs[0]["api"]["ports"][1], 443);
        assert_eq!(docs[0]["web"], docs[0]["base"]);
        assert_eq!(docs[1], Value::Null);
        assert_eq!(docs[2]["kind"], "Pod");
        assert_eq!(docs[2]["n"], 1.5);
        assert_eq!(docs[2]["z"], Value::Null);
        let plain: Vec<Value> = serde_yaml_ng::Deserializer::from_str(text)
            .map(|d| serde::Deserialize::deserialize(d).unwrap())
            .collect();
        assert_eq!(docs, plain, "the same values as the parser's own");
    }

    #[test]
    fn syntax_errors_keep_their_line() {
        let err = parse("a: 1\nb: [\n").unwrap_err();
        assert!(matches!(err, YamlError::Syntax(_)));
        assert!(err.line().is_some());
    }
}
