//! The fetch result: the vertices of one draw in processing order, kept as a structure of
//! arrays (one index column, one f32x4 column per attribute), plus per-vertex views.

use serde::Serialize;

/// Where an attribute's values came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AttributeSource {
    /// A vertex array in captured guest memory.
    Array,
    /// The draw's `INLINE_ARRAY` words.
    Inline,
    /// An immediate (`SET_VERTEX_DATA*`) value, the same for every vertex.
    Immediate,
    /// Per-vertex `SET_VERTEX_DATA*` values of an immediate-mode draw (the push buffer).
    #[serde(rename = "push_buffer")]
    PushBuffer,
    /// No array and no value written during the frame: RPCS3's replay reads
    /// [`crate::UNSET_ATTRIBUTE`].
    Unset,
}

/// Which values of a column the capture does not determine (state set before the captured
/// frame, rrc-format.md 3.4); those hold what RPCS3's replay reads instead
/// ([`crate::ImmediateValue::replayed`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UnknownValues {
    /// Every value is known.
    #[default]
    None,
    /// No value is known.
    All,
    /// The values at these output positions (ascending) are unknown.
    Positions(Vec<usize>),
}

/// The first element of a vertex array that the capture's memory does not hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MissingElement {
    pub location: rsxtrace_rrc::Location,
    /// Its address in `location`.
    pub offset: u32,
    /// The bytes one element reads.
    pub len: u32,
}

/// The values of one attribute, one per submitted vertex.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AttributeData {
    /// Attribute number, 0..=15.
    pub attribute: u8,
    pub source: AttributeSource,
    /// `values[p]` belongs to the vertex at output position `p`.
    pub values: Vec<[f32; 4]>,
    /// Values the capture does not determine (substituted with RPCS3's replay value).
    pub unknown: UnknownValues,
    /// For an array, the first element read whose bytes the capture lacks (its values are
    /// among `unknown`, read from zero bytes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing: Option<MissingElement>,
}

impl AttributeData {
    /// Whether the value at output position `position` is determined by the capture.
    pub fn is_known(&self, position: usize) -> bool {
        match &self.unknown {
            UnknownValues::None => true,
            UnknownValues::All => false,
            UnknownValues::Positions(p) => p.binary_search(&position).is_err(),
        }
    }

    /// Whether some value of the column is not determined by the capture.
    pub fn has_unknown(&self) -> bool {
        self.unknown != UnknownValues::None
    }

    /// A one-line warning naming the attribute when some of its values are unknown (the CLI
    /// prints it after `warning: `), `None` when every value is known.
    pub fn unknown_note(&self) -> Option<String> {
        let a = self.attribute;
        if let (Some(m), AttributeSource::Array) = (self.missing, self.source) {
            let vertices = match &self.unknown {
                UnknownValues::Positions(p) if p.len() == 1 => "1 vertex reads".to_string(),
                UnknownValues::Positions(p) => format!("{} vertices read", p.len()),
                _ => "every vertex reads".to_string(),
            };
            return Some(format!(
                "attribute {a}: {vertices} array memory the capture does not hold (first {} bytes at {}+{:#010x}); read as zero bytes, as RPCS3's replay reads memory no captured block wrote",
                m.len,
                m.location.name(),
                m.offset
            ));
        }
        match (&self.unknown, self.source) {
            (UnknownValues::None, _) => None,
            (UnknownValues::All, AttributeSource::Unset) => Some(format!(
                "attribute {a} has no array and no value in the capture (set before the captured frame); read as (0, 0, 0, 1), as RPCS3's replay does"
            )),
            (UnknownValues::All, AttributeSource::PushBuffer) => Some(format!(
                "attribute {a}: every immediate-mode vertex takes a register value set before the captured frame; read as zero words, as RPCS3's replay does"
            )),
            (UnknownValues::All, _) => Some(format!(
                "attribute {a}: only part of its immediate value was written in the captured frame; the rest read as zero words, as RPCS3's replay does"
            )),
            (UnknownValues::Positions(p), _) => Some(format!(
                "attribute {a}: {} immediate-mode vertices take a register value set before the captured frame; read as zero words, as RPCS3's replay does",
                p.len()
            )),
        }
    }
}

/// Every vertex a draw submits, in processing order.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FetchedVertices {
    /// Vertex index per output position: the vertex id for `DRAW_ARRAYS` (`first + i`), the
    /// index after the base index (`(idx + base_index) & 0xFFFFF`) for indexed draws and
    /// array elements, the position in the stream for inline arrays.
    pub indices: Vec<u32>,
    /// One column per attribute of the input mask, in attribute order.
    pub attributes: Vec<AttributeData>,
    /// Output positions where a primitive restart index was found: a new primitive starts at
    /// the vertex at that position (it may equal `len()` when the restart is last). Restart
    /// indices are not vertices. Consecutive restarts give one entry.
    pub restarts: Vec<usize>,
    /// Output position where each draw range (`DRAW_ARRAYS` / `DRAW_INDEX_ARRAY` command)
    /// starts; a single entry 0 for inline arrays and array elements.
    pub range_starts: Vec<usize>,
}

impl FetchedVertices {
    /// Number of submitted vertices.
    pub fn len(&self) -> usize {
        self.indices.len()
    }

    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }

    /// One warning per attribute with unknown values ([`AttributeData::unknown_note`]).
    pub fn unknown_notes(&self) -> Vec<String> {
        self.attributes
            .iter()
            .filter_map(AttributeData::unknown_note)
            .collect()
    }

    /// Attributes with a value the capture does not determine, ascending.
    pub fn unknown_attributes(&self) -> Vec<u8> {
        self.attributes
            .iter()
            .filter(|a| a.has_unknown())
            .map(|a| a.attribute)
            .collect()
    }

    /// The column of attribute `attribute`, if the input mask has it.
    pub fn attribute(&self, attribute: u8) -> Option<&AttributeData> {
        self.attributes.iter().find(|a| a.attribute == attribute)
    }

    /// The vertex at output position `position`.
    pub fn vertex(&self, position: usize) -> Option<VertexView<'_>> {
        let index = *self.indices.get(position)?;
        Some(VertexView {
            fetched: self,
            position,
            index,
        })
    }

    /// All vertices in processing order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = VertexView<'_>> + '_ {
        self.indices
            .iter()
            .enumerate()
            .map(move |(position, &index)| VertexView {
                fetched: self,
                position,
                index,
            })
    }
}

/// One submitted vertex, viewed across the attribute columns.
#[derive(Clone, Copy, Debug)]
pub struct VertexView<'a> {
    fetched: &'a FetchedVertices,
    position: usize,
    index: u32,
}

impl<'a> VertexView<'a> {
    /// Output position (0-based, restarts not counted).
    pub fn position(&self) -> usize {
        self.position
    }

    /// Vertex index (see [`FetchedVertices::indices`]).
    pub fn index(&self) -> u32 {
        self.index
    }

    /// The value of attribute `attribute` for this vertex, if the input mask has it.
    pub fn get(&self, attribute: u8) -> Option<[f32; 4]> {
        self.fetched
            .attribute(attribute)?
            .values
            .get(self.position)
            .copied()
    }

    /// The value of attribute `attribute` when the capture determines it: `None` when the
    /// input mask does not have it, `Some(None)` when it is unknown (see [`UnknownValues`]).
    pub fn get_known(&self, attribute: u8) -> Option<Option<[f32; 4]>> {
        let column = self.fetched.attribute(attribute)?;
        let value = *column.values.get(self.position)?;
        Some(column.is_known(self.position).then_some(value))
    }

    /// `(attribute, value or None when unknown)` for every attribute of the input mask, in
    /// attribute order.
    pub fn known_values(&self) -> impl Iterator<Item = (u8, Option<[f32; 4]>)> + 'a {
        let position = self.position;
        self.fetched.attributes.iter().filter_map(move |a| {
            let value = *a.values.get(position)?;
            Some((a.attribute, a.is_known(position).then_some(value)))
        })
    }

    /// `(attribute, value)` for every attribute of the input mask, in attribute order.
    pub fn values(&self) -> impl Iterator<Item = (u8, [f32; 4])> + 'a {
        let position = self.position;
        self.fetched
            .attributes
            .iter()
            .filter_map(move |a| Some((a.attribute, *a.values.get(position)?)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column(source: AttributeSource, unknown: UnknownValues) -> AttributeData {
        AttributeData {
            attribute: 3,
            source,
            values: vec![[0.0; 4]; 2],
            unknown,
            missing: None,
        }
    }

    #[test]
    fn each_kind_of_unknown_value_gets_its_own_warning() {
        let note = |s, u| column(s, u).unknown_note();
        assert_eq!(note(AttributeSource::Array, UnknownValues::None), None);
        assert!(note(AttributeSource::Unset, UnknownValues::All)
            .unwrap()
            .contains("no array and no value"));
        assert!(note(AttributeSource::Immediate, UnknownValues::All)
            .unwrap()
            .contains("only part of its immediate value"));
        // A push-buffer column whose every vertex was padded is not a partial value.
        assert!(note(AttributeSource::PushBuffer, UnknownValues::All)
            .unwrap()
            .contains("every immediate-mode vertex"));
        assert!(note(
            AttributeSource::PushBuffer,
            UnknownValues::Positions(vec![1])
        )
        .unwrap()
        .contains("1 immediate-mode vertices"));
    }
}
