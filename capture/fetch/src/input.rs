//! The vertex-input state of one draw, as the frame model hands it to the fetcher.
//!
//! These types are filled by the frame model (`rsxtrace-frame`) from the NV4097 registers
//! (rrc-format.md 4.2 to 4.4) and read by [`crate::fetch_draw`].

use rsxtrace_rrc::Location;
use serde::Serialize;

/// Vertex array element type (`SET_VERTEX_DATA_ARRAY_FORMAT` bits 0..2, rrc-format.md 4.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum VertexType {
    /// 1: signed normalised 16-bit, `(v + 0.5) / 32767.5`.
    S1,
    /// 2: IEEE float32.
    F,
    /// 3: IEEE float16.
    SF,
    /// 4: unsigned normalised 8-bit.
    UB,
    /// 5: signed 16-bit, not normalised.
    S32K,
    /// 6: packed 11:11:10 signed normalised.
    CMP,
    /// 7 (and 0): unsigned 8-bit, not normalised.
    UB256,
}

impl VertexType {
    /// Decode the 3-bit type field; 0 is treated as UB256 (RPCS3 `to_vertex_base_type`).
    pub fn from_field(bits: u32) -> VertexType {
        match bits & 7 {
            1 => VertexType::S1,
            2 => VertexType::F,
            3 => VertexType::SF,
            4 => VertexType::UB,
            5 => VertexType::S32K,
            6 => VertexType::CMP,
            _ => VertexType::UB256,
        }
    }

    /// Host element size of `size` components (`get_vertex_type_size_on_host`, rrc-format.md
    /// 4.3): 16- and 8-bit types pad 3 components to 4, F does not, CMP and UB256 are one
    /// 4-byte word. `size` is not checked here; [`crate::ElementFormat`] holds the fetch's rules.
    pub fn host_bytes(self, size: u8) -> u32 {
        let size = u32::from(size);
        let padded = if size == 3 { 4 } else { size };
        match self {
            VertexType::F => 4 * size,
            VertexType::CMP | VertexType::UB256 => 4,
            VertexType::S1 | VertexType::SF | VertexType::S32K => 2 * padded,
            VertexType::UB => padded,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            VertexType::S1 => "S1",
            VertexType::F => "F",
            VertexType::SF => "SF",
            VertexType::UB => "UB",
            VertexType::S32K => "S32K",
            VertexType::CMP => "CMP",
            VertexType::UB256 => "UB256",
        }
    }
}

/// How an attribute with frequency > 1 maps the vertex id (`SET_FREQUENCY_DIVIDER_OPERATION`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum FrequencyOp {
    /// `vid / frequency`.
    Divide,
    /// `vid % frequency`.
    Modulo,
}

/// One enabled vertex attribute array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct VertexArray {
    pub ty: VertexType,
    /// Components per element, 1..=4.
    pub size: u8,
    /// Bytes between elements; 0 = one element shared by all vertices.
    pub stride: u8,
    /// Instancing divider (bits 16..31 of the format); <= 1 means per vertex.
    pub frequency: u16,
    pub frequency_op: FrequencyOp,
    /// `SET_VERTEX_DATA_ARRAY_OFFSET` bits 0..30 (before the base offset is added).
    pub offset: u32,
    pub location: Location,
}

/// What RPCS3's replay reads for an attribute of the input mask that has no array and no
/// register value: (0, 0, 0, 1).
///
/// RPCS3's replay starts from default-initialised `register_vertex_info` (size 0;
/// `rsx_methods.cpp` `rsx_state::init`, rrc-format.md 3.4 item 4), so such an attribute gets
/// placement `none` (`RSXDrawCommands.cpp` `analyse_inputs_interleaved`) and an all-zero
/// descriptor (`fill_vertex_layout_state`); `RSXVertexFetch.glsl` `fetch_attribute` decodes a
/// zero descriptor (type 0, size 0) through its CMP branch with the w lane forced to the
/// scale 1, i.e. (0, 0, 0, 1).
pub const UNSET_ATTRIBUTE: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

/// The value of an attribute that has no array: set by `SET_VERTEX_DATA*` during the frame, or
/// unknown (immediate values set before the frame are not captured, rrc-format.md 1.6 / 3.4).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum ImmediateValue {
    /// Nothing of it was written during the frame; RPCS3's replay reads [`UNSET_ATTRIBUTE`].
    Unknown,
    /// Written during the frame only in part (some words of its family, or a push-buffer
    /// vertex padded with a register value set before the frame): the true value is unknown;
    /// `replayed` is what RPCS3's replay reads (the unwritten words zero, decoded with the
    /// family written).
    Partial {
        replayed: [f32; 4],
    },
    Known([f32; 4]),
}

impl ImmediateValue {
    /// The value when the capture determines it.
    pub fn known(self) -> Option<[f32; 4]> {
        match self {
            ImmediateValue::Known(v) => Some(v),
            _ => None,
        }
    }

    /// The value RPCS3's replay of the capture reads: the known value, or its substitute.
    pub fn replayed(self) -> [f32; 4] {
        match self {
            ImmediateValue::Known(v) | ImmediateValue::Partial { replayed: v } => v,
            ImmediateValue::Unknown => UNSET_ATTRIBUTE,
        }
    }
}

/// Index buffer description (`SET_INDEX_ARRAY_ADDRESS` / `SET_INDEX_ARRAY_DMA`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct IndexArray {
    pub ty: IndexType,
    pub offset: u32,
    pub location: Location,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum IndexType {
    /// `CELL_GCM_DRAW_INDEX_ARRAY_TYPE_32` (DMA type field 0).
    U32,
    /// `CELL_GCM_DRAW_INDEX_ARRAY_TYPE_16` (DMA type field 1).
    U16,
}

impl IndexType {
    pub fn size(self) -> u32 {
        match self {
            IndexType::U32 => 4,
            IndexType::U16 => 2,
        }
    }
}

/// One `DRAW_ARRAYS` / `DRAW_INDEX_ARRAY` range: `first` vertex or index element, `count` of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct DrawRange {
    pub first: u32,
    pub count: u32,
}

/// Where a draw's vertices come from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum VertexSource {
    /// `DRAW_ARRAYS` ranges: vertex ids `first..first+count` per range.
    Arrays { ranges: Vec<DrawRange> },
    /// `DRAW_INDEX_ARRAY` ranges read from an index buffer.
    Indexed {
        index: IndexArray,
        ranges: Vec<DrawRange>,
    },
    /// `INLINE_ARRAY` words (as recorded in the FIFO, host order), interleaved per vertex with
    /// the layout given by the enabled arrays' types and sizes.
    Inline { words: Vec<u32> },
    /// `ARRAY_ELEMENT16` / `ARRAY_ELEMENT32` immediate indices.
    Elements { indices: Vec<u32> },
    /// Immediate-mode vertices: a BEGIN/END scope with no draw command whose vertices were
    /// written with `SET_VERTEX_DATA*` (the "push buffer", rrc-format.md 4.4). `count` is the
    /// number of vertices of attribute 0; attributes listed in `streams` take one value per
    /// vertex, every other attribute takes its [`VertexInputs::immediate`] value. Vertex
    /// arrays are ignored: RPCS3 bypasses all array setup for such draws
    /// (`RSXDrawCommands.cpp` `analyse_inputs_interleaved`, `is_immediate_draw`).
    Immediate {
        count: u32,
        streams: Vec<ImmediateStream>,
    },
}

/// The per-vertex values of one attribute in an immediate-mode draw.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ImmediateStream {
    /// Attribute number, 0..=15.
    pub attribute: u8,
    /// One value per vertex (`count` of them). `Unknown` where the vertex took the attribute's
    /// register value and that value was set before the captured frame.
    pub values: Vec<ImmediateValue>,
}

/// Primitive restart (`SET_RESTART_INDEX_ENABLE` / `SET_RESTART_INDEX`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Restart {
    pub enabled: bool,
    pub index: u32,
}

/// The complete vertex input state of one draw.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VertexInputs {
    /// Attribute arrays by attribute number; `None` = size field 0 (disabled).
    pub arrays: [Option<VertexArray>; 16],
    /// Immediate values by attribute number (used where `arrays[i]` is `None`).
    pub immediate: [ImmediateValue; 16],
    /// `SET_VERTEX_ATTRIB_INPUT_MASK`: bit i = attribute i is read by the vertex program.
    pub input_mask: u16,
    /// `SET_VERTEX_DATA_BASE_OFFSET`.
    pub base_offset: u32,
    /// `SET_VERTEX_DATA_BASE_INDEX`.
    pub base_index: u32,
    pub restart: Restart,
    pub source: VertexSource,
}
