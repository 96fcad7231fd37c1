//! `shade`: run a fragment program over a whole image with fixed, documented inputs, as the
//! ps3autotests `rsx_fp_*` tests draw a full-screen quad; plus program loading with uniforms
//! set by name, and PNG output.
//!
//! Inputs for the pixel in column x, row y (row 0 at the top) of a W × H image:
//! - TEX0 = ((x + 0.5) / W, 1 − (y + 0.5) / H, 0, 1), as the RSX interpolates it: the
//!   reciprocal of the size and the result truncated to f32
//!   (`rsxtrace_semantics::texcoord`, fitted to the PS3 images);
//! - COL0 = COL1 = (1, 1, 1, 1);
//! - WPOS = (x + 0.5, H − (y + 0.5), 0.5, 1);
//! - every other input 0 (FOGC.w reads 0 anyway, rsx-microcode.md B.3).
//!
//! The result is colour output 0 as floats and as 8-bit RGBA, each channel by the RSX's 8-bit
//! surface write rule ([`to_unorm8`]).

use std::path::Path;

use rsxtrace_program::container::{self, Container, ContainerError, Stage};
use rsxtrace_program::fragment::{self, FragmentDecodeError, FragmentProgram};
use thiserror::Error;

use crate::interp::fragment::{
    attr, run_fragment_with, FragmentExecError, FragmentState, LaneInputs, QuadInputs,
    CONTROL_32_BIT_EXPORTS,
};
use crate::interp::Arithmetic;
use crate::texture::Sampler;

/// Why shading, loading or writing failed.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ShadeError {
    /// The interpreter refused the program.
    #[error(transparent)]
    Exec(#[from] FragmentExecError),
    /// The container could not be parsed or patched.
    #[error("container: {0}")]
    Container(#[from] ContainerError),
    /// Fragment assembly text that does not assemble.
    #[error("{0}")]
    Assembly(#[from] rsxtrace_program::fragment::AssembleError),
    /// The microcode could not be decoded.
    #[error("fragment decode: {0}")]
    Decode(#[from] FragmentDecodeError),
    /// The image has no pixels or is too large to address.
    #[error("invalid image size {width}x{height}")]
    Size {
        /// Width.
        width: u32,
        /// Height.
        height: u32,
    },
    /// A `NAME=x,y,z,w` uniform assignment is malformed.
    #[error("uniform {text:?}: {reason}")]
    UniformSyntax {
        /// The text given.
        text: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// The program has no uniform of that name (or no inline-constant slots: raw
    /// microcode, vertex programs).
    #[error("program has no fragment uniform named {0:?}")]
    UnknownUniform(String),
    /// The container is a vertex program.
    #[error("program is a vertex program, not a fragment program")]
    NotFragment,
    /// Reading a file or writing the PNG failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The PNG encoder failed.
    #[error("png: {0}")]
    Png(#[from] png::EncodingError),
}

/// A shaded image.
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Row-major RGBA8, row 0 at the top, `width * height * 4` bytes.
    pub rgba8: Vec<u8>,
    /// Row-major colour output 0 as computed (f32; f64 results are rounded to f32).
    pub float: Vec<[f32; 4]>,
}

impl Image {
    /// Writes the RGBA8 pixels as a PNG file.
    pub fn write_png(&self, path: impl AsRef<Path>) -> Result<(), ShadeError> {
        let path = path.as_ref();
        let io = |source| ShadeError::Io {
            path: path.display().to_string(),
            source,
        };
        let file = std::fs::File::create(path).map_err(io)?;
        let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), self.width, self.height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header()?;
        writer.write_image_data(&self.rgba8)?;
        writer.finish()?;
        Ok(())
    }
}

/// One 8-bit channel by the RSX's 8-bit colour write rule ([`crate::render::color8`]: NaN → 0,
/// clamp to [0, 1], n = floor(x × 4096), (n × 255 + 2048) >> 12).
/// An f64 result is rounded to f32 first, as the colour output is an f32.
pub fn to_unorm8(v: f64) -> u8 {
    crate::render::color8::unorm8(v as f32)
}

/// The inputs of pixel (`x`, `y`) described in the module doc. Pixels outside the image
/// (padding of odd sizes) follow the same formulas.
pub fn pixel_inputs(x: u32, y: u32, width: u32, height: u32) -> LaneInputs {
    let h = f64::from(height);
    let (px, py) = (f64::from(x) + 0.5, f64::from(y) + 0.5);
    let mut lane = LaneInputs::default();
    let [u, v] = rsxtrace_semantics::texcoord::full_screen_texcoord(x, y, width, height);
    lane.attributes[attr::TEX0] = [u, v, 0.0, 1.0];
    lane.attributes[attr::COL0] = [1.0; 4];
    lane.attributes[attr::COL1] = [1.0; 4];
    lane.attributes[attr::WPOS] = [px as f32, (h - py) as f32, 0.5, 1.0];
    lane
}

/// The quad holding pixel (`x`, `y`) of a `width` × `height` image, with the inputs of the
/// module doc for each of its four pixels (lanes outside the image run as helpers, not
/// covered), and the pixel's lane.
pub fn pixel_quad(x: u32, y: u32, width: u32, height: u32) -> (QuadInputs, usize) {
    let (x0, y0) = (x & !1, y & !1);
    let mut quad = QuadInputs::default();
    for (l, lane) in quad.lanes.iter_mut().enumerate() {
        let (px, py) = (x0 + (l as u32 & 1), y0 + (l as u32 >> 1));
        *lane = pixel_inputs(px, py, width, height);
        if px < width && py < height {
            quad.coverage |= 1 << l;
        }
    }
    (quad, ((y & 1) * 2 + (x & 1)) as usize)
}

/// Shades a `width` × `height` image with `program` under the `SHADER_CONTROL` word
/// `control` and `arithmetic`, other options at their defaults.
pub fn shade(
    program: &FragmentProgram,
    control: u32,
    width: u32,
    height: u32,
    sampler: &dyn Sampler,
    arithmetic: Arithmetic,
) -> Result<Image, ShadeError> {
    let mut state = FragmentState::new(control);
    state.options.arithmetic = arithmetic;
    shade_with(program, &state, width, height, sampler)
}

/// [`shade`] with full control of the interpreter state.
pub fn shade_with(
    program: &FragmentProgram,
    state: &FragmentState,
    width: u32,
    height: u32,
    sampler: &dyn Sampler,
) -> Result<Image, ShadeError> {
    let size_err = ShadeError::Size { width, height };
    if width == 0 || height == 0 {
        return Err(size_err);
    }
    let qw = width.div_ceil(2) as usize;
    let qh = height.div_ceil(2) as usize;
    let pixels = (width as usize)
        .checked_mul(height as usize)
        .filter(|&p| p.checked_mul(16).is_some())
        .ok_or(size_err)?;
    let quads = qw
        .checked_mul(qh)
        .ok_or(ShadeError::Size { width, height })?;
    let outputs = run_fragment_with(
        program,
        state,
        quads,
        |i| pixel_quad((i % qw) as u32 * 2, (i / qw) as u32 * 2, width, height).0,
        sampler,
    )?;
    let mut float = vec![[0f32; 4]; pixels];
    let mut rgba8 = vec![0u8; pixels * 4];
    for (i, q) in outputs.iter().enumerate() {
        let (qx, qy) = ((i % qw) * 2, (i / qw) * 2);
        for (l, lane) in q.lanes.iter().enumerate() {
            let (x, y) = (qx + (l & 1), qy + (l >> 1));
            if x >= width as usize || y >= height as usize {
                continue;
            }
            let p = y * width as usize + x;
            let c = lane.colors[0];
            if let Some(f) = float.get_mut(p) {
                *f = c.map(|v| v as f32);
            }
            if let Some(px) = rgba8.get_mut(p * 4..p * 4 + 4) {
                for (dst, v) in px.iter_mut().zip(c) {
                    *dst = to_unorm8(v);
                }
            }
        }
    }
    Ok(Image {
        width,
        height,
        rgba8,
        float,
    })
}

/// A uniform assignment `NAME=x,y,z,w` (1 to 4 values; missing ones are 0).
#[derive(Clone, Debug, PartialEq)]
pub struct Uniform {
    /// Parameter name as stored in the container.
    pub name: String,
    /// The value.
    pub value: [f32; 4],
}

impl std::str::FromStr for Uniform {
    type Err = ShadeError;

    fn from_str(text: &str) -> Result<Self, ShadeError> {
        let err = |reason| ShadeError::UniformSyntax {
            text: text.to_string(),
            reason,
        };
        let (name, values) = text.split_once('=').ok_or_else(|| err("missing '='"))?;
        if name.is_empty() {
            return Err(err("empty name"));
        }
        let mut value = [0f32; 4];
        for (n, part) in values.split(',').enumerate() {
            let slot = value.get_mut(n).ok_or_else(|| err("more than 4 values"))?;
            *slot = part
                .trim()
                .parse()
                .map_err(|_| err("value is not a number"))?;
        }
        Ok(Uniform {
            name: name.to_string(),
            value,
        })
    }
}

/// A fragment program ready for [`shade`].
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedProgram {
    /// The decoded program (with uniforms patched in).
    pub program: FragmentProgram,
    /// The container's `SHADER_CONTROL` word; 0x40 (R0 export) for raw microcode, which
    /// carries none.
    pub control: u32,
    /// The microcode as in guest memory (uniforms patched in).
    pub ucode: Vec<u8>,
}

impl From<container::ProgramBytesError> for ShadeError {
    fn from(e: container::ProgramBytesError) -> ShadeError {
        match e {
            container::ProgramBytesError::Container(e) => ShadeError::Container(e),
            container::ProgramBytesError::Assembly(e) => ShadeError::Assembly(e),
        }
    }
}

/// Loads a fragment program from a container (CgBinary, PSL1GHT), fragment assembly text or
/// raw microcode, writes each uniform into its inline-constant slots (the container's
/// embedded-constant offsets, rsx-microcode.md B.3) and decodes it.
pub fn load_program(bytes: &[u8], uniforms: &[Uniform]) -> Result<LoadedProgram, ShadeError> {
    let mut c = Container::parse_any(bytes, Stage::Fragment)?;
    if c.stage() != Stage::Fragment {
        return Err(ShadeError::NotFragment);
    }
    for u in uniforms {
        let offsets = c
            .embedded_constants(&u.name)
            .ok_or_else(|| ShadeError::UnknownUniform(u.name.clone()))?
            .to_vec();
        container::set_uniform(c.ucode_mut(), &offsets, u.value)?;
    }
    let raw = matches!(c, Container::Raw(_));
    let program = if raw {
        fragment::decode_until_end(c.ucode())?
    } else {
        fragment::decode(c.ucode())?
    };
    Ok(LoadedProgram {
        program,
        control: c.control_word().unwrap_or(CONTROL_32_BIT_EXPORTS),
        ucode: c.ucode().to_vec(),
    })
}

/// [`load_program`] from a file, with uniforms as `NAME=x,y,z,w` strings.
pub fn load_program_file(
    path: impl AsRef<Path>,
    uniforms: &[&str],
) -> Result<LoadedProgram, ShadeError> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|source| ShadeError::Io {
        path: path.display().to_string(),
        source,
    })?;
    let parsed = uniforms
        .iter()
        .map(|s| s.parse())
        .collect::<Result<Vec<Uniform>, _>>()?;
    load_program(&bytes, &parsed)
}
