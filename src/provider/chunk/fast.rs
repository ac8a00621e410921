//! The streaming twin of the derived impls, for `Chunk::choices`.
//!
//! Rules, each the one the derived path applies to a buffered value:
//! - `choices` / `tool_calls`: an array whose every element is a valid struct, else empty.
//! - a struct (`ChunkChoice`, `Delta`, `ToolCallDelta`, `FunctionDelta`): an object (unknown
//!   keys ignored, a repeated known key invalid) or an array of its fields in order (more
//!   elements than fields invalid); anything else invalid. Only `ToolCallDelta.function` can
//!   make its struct invalid (a `function` that is not null and not a valid `FunctionDelta`).
//! - `delta` / `message`: null or invalid becomes `None`.
//! - scalars go through the same `Value` conversions as the derived path.
//!
//! Every value is consumed with `deserialize_any`, as buffering it would, so the same JSON is
//! rejected (syntax, nesting depth, numbers out of range) and everything else never fails.
//!
//! In: a serde `Deserializer` positioned at a chunk's `choices`; out: its `ChunkChoice`s, or the
//! error the buffered path would give. Not here: any other field of a chunk. The derived impls
//! in the parent stay the definition of the rules; the property test in `chunk/tests.rs` checks
//! this file against them on random JSON.

use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Number, Value};

use super::{
    ChunkChoice, Delta, FunctionDelta, ToolCallDelta, arguments_from, string_from, u64_from,
};

pub(super) fn choices<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<ChunkChoice>, D::Error> {
    d.deserialize_any(ListVisitor(PhantomData))
}

/// Scalars that every visitor here treats alike: `$on` gets the value as serde_json's
/// `Value` visitor would build it.
macro_rules! scalars {
    ($on:expr) => {
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(($on)(self, Value::Null))
        }
        fn visit_bool<E>(self, b: bool) -> Result<Self::Value, E> {
            Ok(($on)(self, Value::Bool(b)))
        }
        fn visit_i64<E>(self, n: i64) -> Result<Self::Value, E> {
            Ok(($on)(self, Value::Number(n.into())))
        }
        fn visit_u64<E>(self, n: u64) -> Result<Self::Value, E> {
            Ok(($on)(self, Value::Number(n.into())))
        }
        fn visit_f64<E>(self, n: f64) -> Result<Self::Value, E> {
            Ok(($on)(
                self,
                Number::from_f64(n).map_or(Value::Null, Value::Number),
            ))
        }
        fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
            Ok(($on)(self, Value::String(s.to_owned())))
        }
        fn visit_string<E>(self, s: String) -> Result<Self::Value, E> {
            Ok(($on)(self, Value::String(s)))
        }
    };
}

fn skip_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<Skip>()?.is_some() {}
    Ok(())
}

fn skip_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<Skip, Skip>()?.is_some() {}
    Ok(())
}

/// Any value, parsed (not just scanned) and dropped.
struct Skip;

impl<'de> Deserialize<'de> for Skip {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(SkipVisitor)
    }
}

struct SkipVisitor;

impl<'de> Visitor<'de> for SkipVisitor {
    type Value = Skip;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_unit<E>(self) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_str<E>(self, _: &str) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Skip, A::Error> {
        skip_seq(seq).map(|()| Skip)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Skip, A::Error> {
        skip_map(map).map(|()| Skip)
    }
}

/// A scalar-valued field: `f` is the derived path's conversion from `Value`. Arrays and
/// objects are built into a `Value` only when `f` looks at them.
struct ViaValue<R> {
    f: fn(Value) -> Option<R>,
    compound: bool,
}

impl<'de, R> DeserializeSeed<'de> for ViaValue<R> {
    type Value = Option<R>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<R>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, R> Visitor<'de> for ViaValue<R> {
    type Value = Option<R>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any value")
    }
    scalars!(|this: Self, v| (this.f)(v));
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Option<R>, A::Error> {
        if self.compound {
            Ok((self.f)(Value::deserialize(SeqAccessDeserializer::new(
                seq,
            ))?))
        } else {
            skip_seq(seq)?;
            Ok((self.f)(Value::Array(Vec::new())))
        }
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Option<R>, A::Error> {
        if self.compound {
            Ok((self.f)(Value::deserialize(MapAccessDeserializer::new(
                map,
            ))?))
        } else {
            skip_map(map)?;
            Ok((self.f)(Value::Object(serde_json::Map::new())))
        }
    }
}

const STRING: ViaValue<String> = ViaValue {
    f: string_from,
    compound: false,
};
const U64: ViaValue<u64> = ViaValue {
    f: u64_from,
    compound: false,
};
const ARGUMENTS: ViaValue<String> = ViaValue {
    f: arguments_from,
    compound: true,
};
/// `Value::as_str` of a value.
const AS_STR: ViaValue<String> = ViaValue {
    f: |v| match v {
        Value::String(s) => Some(s),
        _ => None,
    },
    compound: false,
};

/// `text_or_none`: a string; an array of parts (strings, or objects with text); an
/// object with text; else `None`.
struct Text;

impl<'de> DeserializeSeed<'de> for Text {
    type Value = Option<String>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<String>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Text {
    type Value = Option<String>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("text")
    }
    scalars!(|_, v| match v {
        Value::String(s) => Some(s),
        _ => None,
    });
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<String>, A::Error> {
        let mut joined = String::new();
        while let Some(part) = seq.next_element_seed(Part)? {
            if let Some(part) = part {
                joined.push_str(&part);
            }
        }
        Ok(Some(joined))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Option<String>, A::Error> {
        object_text(map)
    }
}

/// One element of an array of parts: a string, or an object with text.
struct Part;

impl<'de> DeserializeSeed<'de> for Part {
    type Value = Option<String>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<String>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Part {
    type Value = Option<String>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a part")
    }
    scalars!(|_, v| match v {
        Value::String(s) => Some(s),
        _ => None,
    });
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Option<String>, A::Error> {
        skip_seq(seq).map(|()| None)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Option<String>, A::Error> {
        object_text(map)
    }
}

/// `o.get("text").or_else(|| o.get("content")).and_then(Value::as_str)`, where a repeated
/// key keeps its last value as in a `Value` object.
fn object_text<'de, A: MapAccess<'de>>(mut map: A) -> Result<Option<String>, A::Error> {
    const KEYS: &[&str] = &["text", "content"];
    let mut text: Option<Option<String>> = None;
    let mut content: Option<Option<String>> = None;
    while let Some(key) = map.next_key_seed(Key(KEYS))? {
        match key {
            Some(0) => text = Some(map.next_value_seed(AS_STR)?),
            Some(_) => content = Some(map.next_value_seed(AS_STR)?),
            None => {
                map.next_value::<Skip>()?;
            }
        }
    }
    Ok(match text {
        Some(t) => t,
        None => content.flatten(),
    })
}

/// An object key: its position in the list, or `None` for any other key.
struct Key(&'static [&'static str]);

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Option<usize>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<usize>, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = Option<usize>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E>(self, s: &str) -> Result<Option<usize>, E> {
        Ok(self.0.iter().position(|k| *k == s))
    }
}

/// A struct read leniently, field by field.
trait Fields: Default {
    const NAMES: &'static [&'static str];
    /// Reads field `i` from `d`; `false` means the value makes the whole struct invalid.
    fn field<'de, D: Deserializer<'de>>(&mut self, i: usize, d: D) -> Result<bool, D::Error>;
}

struct Field<'a, T> {
    target: &'a mut T,
    i: usize,
}

impl<'de, T: Fields> DeserializeSeed<'de> for Field<'_, T> {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        self.target.field(self.i, d)
    }
}

/// Fills a struct in place (no moves of the large structs on the hot path); `false` when
/// the value is not a valid one, and the struct is then to be thrown away.
struct Into<'a, T>(&'a mut T);

impl<'de, T: Fields> DeserializeSeed<'de> for Into<'_, T> {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, T: Fields> Visitor<'de> for Into<'_, T> {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object")
    }
    scalars!(|_, _| false);
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let mut seen = 0u32;
        let mut valid = true;
        while let Some(key) = map.next_key_seed(Key(T::NAMES))? {
            match key {
                Some(i) if valid && seen & (1 << i) == 0 => {
                    seen |= 1 << i;
                    valid = map.next_value_seed(Field {
                        target: &mut *self.0,
                        i,
                    })?;
                }
                Some(_) => {
                    // A repeated field (or anything after the struct became invalid).
                    valid = false;
                    map.next_value::<Skip>()?;
                }
                None => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        Ok(valid)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        let mut valid = true;
        let mut i = 0;
        loop {
            if valid && i < T::NAMES.len() {
                match seq.next_element_seed(Field {
                    target: &mut *self.0,
                    i,
                })? {
                    Some(ok) => valid = ok,
                    None => break,
                }
                i += 1;
            } else {
                match seq.next_element::<Skip>()? {
                    Some(Skip) => valid = false,
                    None => break,
                }
            }
        }
        Ok(valid)
    }
}

/// `seq_or_none`: an array of valid structs, else empty.
struct ListVisitor<T>(PhantomData<T>);

impl<'de, T: Fields> DeserializeSeed<'de> for ListVisitor<T> {
    type Value = Vec<T>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<T>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, T: Fields> Visitor<'de> for ListVisitor<T> {
    type Value = Vec<T>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array")
    }
    scalars!(|_, _| Vec::new());
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        let mut out: Vec<T> = Vec::new();
        loop {
            out.push(T::default());
            let slot = out.last_mut().expect("just pushed");
            match seq.next_element_seed(Into(slot))? {
                Some(true) => {}
                Some(false) => {
                    skip_seq(seq)?;
                    return Ok(Vec::new());
                }
                None => {
                    out.pop();
                    return Ok(out);
                }
            }
        }
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Vec<T>, A::Error> {
        skip_map(map).map(|()| Vec::new())
    }
}

/// `delta_or_none`: a valid `Delta`, else `None`.
fn delta<'de, D: Deserializer<'de>>(slot: &mut Option<Delta>, d: D) -> Result<(), D::Error> {
    if !Into(slot.insert(Delta::default())).deserialize(d)? {
        *slot = None;
    }
    Ok(())
}

impl Fields for ChunkChoice {
    const NAMES: &'static [&'static str] = &["delta", "message", "finish_reason"];
    fn field<'de, D: Deserializer<'de>>(&mut self, i: usize, d: D) -> Result<bool, D::Error> {
        match i {
            0 => delta(&mut self.delta, d)?,
            1 => delta(&mut self.message, d)?,
            _ => self.finish_reason = STRING.deserialize(d)?,
        }
        Ok(true)
    }
}

impl Fields for Delta {
    const NAMES: &'static [&'static str] =
        &["content", "reasoning_content", "reasoning", "tool_calls"];
    fn field<'de, D: Deserializer<'de>>(&mut self, i: usize, d: D) -> Result<bool, D::Error> {
        match i {
            0 => self.content = Text.deserialize(d)?,
            1 => self.reasoning_content = Text.deserialize(d)?,
            2 => self.reasoning = Text.deserialize(d)?,
            _ => self.tool_calls = ListVisitor(PhantomData).deserialize(d)?,
        }
        Ok(true)
    }
}

impl Fields for ToolCallDelta {
    const NAMES: &'static [&'static str] = &["index", "id", "function"];
    fn field<'de, D: Deserializer<'de>>(&mut self, i: usize, d: D) -> Result<bool, D::Error> {
        match i {
            0 => self.index = U64.deserialize(d)?,
            1 => self.id = STRING.deserialize(d)?,
            _ => {
                // A plain `Option<FunctionDelta>`: null is `None`, anything else must be
                // a valid `FunctionDelta` or the tool call is invalid.
                return d.deserialize_any(OptionalFunction(&mut self.function));
            }
        }
        Ok(true)
    }
}

struct OptionalFunction<'a>(&'a mut Option<FunctionDelta>);

impl<'de> Visitor<'de> for OptionalFunction<'_> {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a function")
    }
    scalars!(|this: Self, v| {
        *this.0 = None;
        v == Value::Null
    });
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<bool, A::Error> {
        Into(self.0.insert(FunctionDelta::default())).visit_seq(seq)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<bool, A::Error> {
        Into(self.0.insert(FunctionDelta::default())).visit_map(map)
    }
}

impl Fields for FunctionDelta {
    const NAMES: &'static [&'static str] = &["name", "arguments"];
    fn field<'de, D: Deserializer<'de>>(&mut self, i: usize, d: D) -> Result<bool, D::Error> {
        match i {
            0 => self.name = STRING.deserialize(d)?,
            _ => self.arguments = ARGUMENTS.deserialize(d)?,
        }
        Ok(true)
    }
}
