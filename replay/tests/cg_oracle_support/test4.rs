//! `rsx_fp_static_test4.cg` (a Shadertoy scene, "Spheres/Plane" by mu6k: ray marching, soft
//! shadows, value noise from sine hashes) in f32, function by function; `iGlobalTime` = 2.0
//! as in the source. The source's defines are taken as set: smoothstep noise, occlusion on
//! (passes of 40 and 8 steps), 128 render steps, object speed 1.

use super::*;

const I_GLOBAL_TIME: f32 = 2.0;
const WIDTH: f32 = 720.0;
const HEIGHT: f32 = 480.0;
const OCCLUSION_PASS1_QUALITY: i32 = 40;
const OCCLUSION_PASS2_QUALITY: i32 = 8;
const RENDER_STEPS: i32 = 128;
const AMBOCCE: f32 = 0.2;

/// Cg `mod(float x, float y)` (the source's GLSL `mod`).
fn modf(x: f32, y: f32) -> f32 {
    x - y * (x / y).floor()
}

/// Cg `mod(float3 x, float y)`.
fn mod3(x: V3, y: f32) -> V3 {
    x.map(|a| modf(a, y))
}

/// Cg `hash(float x)` (the source's literals, rounded to f32 as the compiler does).
#[allow(clippy::excessive_precision)]
fn hash1(x: f32) -> f32 {
    frac((x * 0.0127863).sin() * 17143.321)
}

/// Cg `hash(float2 x)`.
fn hash2(x: V2) -> f32 {
    frac((dot2(x, v2(2.31, 53.21)) * 124.123).cos() * 412.0)
}

/// Cg `hashlerp(float x0, float x1, float interp)`.
fn hashlerp1(x0: f32, x1: f32, interp: f32) -> f32 {
    let (x0, x1) = (hash1(x0), hash1(x1));
    lerp(x0, x1, smoothstep(0.0, 1.0, interp))
}

/// Cg `hashlerp(float2 p0, float2 p1, float2 interp)`.
fn hashlerp2(p0: V2, p1: V2, interp: V2) -> f32 {
    let v0 = hashlerp1(p0.x + p0.y * 128.0, p1.x + p0.y * 128.0, interp.x);
    let v1 = hashlerp1(p0.x + p1.y * 128.0, p1.x + p1.y * 128.0, interp.x);
    lerp(v0, v1, smoothstep(0.0, 1.0, interp.y))
}

/// Cg `hashlerp(float3 p0, float3 p1, float3 interp)`.
fn hashlerp3(p0: V3, p1: V3, interp: V3) -> f32 {
    let v0 = hashlerp2(
        p0.xy() + v2(p0.z * 143.0, 0.0),
        p1.xy() + v2(p0.z * 143.0, 0.0),
        interp.xy(),
    );
    let v1 = hashlerp2(
        p0.xy() + v2(p1.z * 143.0, 0.0),
        p1.xy() + v2(p1.z * 143.0, 0.0),
        interp.xy(),
    );
    lerp(v0, v1, smoothstep(0.0, 1.0, interp.z))
}

/// Cg `noise2(float3 p)`.
fn noise3(p: V3) -> f32 {
    let pm = mod3(p, 1.0);
    let pd = p - pm;
    hashlerp3(pd, pd + splat3(1.0), pm)
}

/// Cg `cc(float3 color, float factor, float factor2)`.
fn cc(color: V3, factor: f32, factor2: f32) -> V3 {
    let w = color.x + color.y + color.z;
    lerp3(color, splat3(w) * factor, w * factor2)
}

/// Cg `rotate_z`: `mul(v, M)`, the row vector times the matrix whose rows are
/// (ca, −sa, 0), (sa, ca, 0), (0, 0, 1).
fn rotate_z(v: V3, angle: f32) -> V3 {
    let (ca, sa) = (angle.cos(), angle.sin());
    v3(v.x * ca + v.y * sa, -v.x * sa + v.y * ca, v.z)
}

/// Cg `rotate_y`: rows (ca, 0, −sa), (0, 1, 0), (sa, 0, ca).
fn rotate_y(v: V3, angle: f32) -> V3 {
    let (ca, sa) = (angle.cos(), angle.sin());
    v3(v.x * ca + v.z * sa, v.y, -v.x * sa + v.z * ca)
}

/// Cg `rotate_x`: rows (1, 0, 0), (0, ca, −sa), (0, sa, ca).
fn rotate_x(v: V3, angle: f32) -> V3 {
    let (ca, sa) = (angle.cos(), angle.sin());
    v3(v.x, v.y * ca + v.z * sa, -v.y * sa + v.z * ca)
}

/// Cg `spheres(float3 p)`.
fn spheres(mut p: V3) -> f32 {
    p.x += 2.0;
    p.z += 2.0;
    p.x = modf(p.x, 4.0);
    p.z = modf(p.z, 4.0);
    p.x -= 2.0;
    p.z -= 2.0;
    length3(p) - 1.0
}

/// Cg `flr(float3 p)`.
fn flr(p: V3) -> f32 {
    p.y + 1.0
}

/// Cg `dist(float3 p)`.
fn dist(p: V3) -> f32 {
    spheres(p).min(flr(p))
}

/// Cg `amb_occ(float3 p)`.
fn amb_occ(p: V3) -> f32 {
    let e = AMBOCCE;
    let mut acc = 0.0;
    for (sx, sy, sz) in [
        (-e, -e, -e),
        (-e, -e, e),
        (-e, e, -e),
        (-e, e, e),
        (e, -e, -e),
        (e, -e, e),
        (e, e, -e),
        (e, e, e),
    ] {
        acc += dist(p + v3(sx, sy, sz));
    }
    0.5 + acc / (16.0 * e)
}

/// Cg `occ(float3 start, float3 light_pos, float size, float dist_to_scan)`; the 3-argument
/// `occ` is this with `dist_to_scan` = the distance to the light (its two passes are the
/// same code with `total_dist` in place of `dist_to_scan`).
fn occ(start: V3, light_pos: V3, size: f32, dist_to_scan: Option<f32>) -> f32 {
    let mut dir = light_pos - start;
    let total_dist = length3(dir);
    dir = dir / total_dist;
    let scan = dist_to_scan.unwrap_or(total_dist);
    let mut search_travel = 0.0;
    let mut search_o = 1.0;
    let mut e = 0.5 * scan / OCCLUSION_PASS1_QUALITY as f32;
    // Pass 1 fixed step search
    for i in 0..OCCLUSION_PASS1_QUALITY {
        let travel = (i as f32 + 0.5) * scan / OCCLUSION_PASS1_QUALITY as f32;
        let cd = dist(start + travel * dir);
        let co = cd / travel * total_dist * size;
        if co < search_o {
            search_o = co;
            search_travel = travel;
            if co < 0.0 {
                break;
            }
        }
    }
    // Pass 2
    for _ in 0..OCCLUSION_PASS2_QUALITY {
        let tr = search_travel + e;
        let oc = dist(start + tr * dir) / tr * total_dist * size;
        if tr < 0.0 || tr > total_dist {
            break;
        }
        if oc < search_o {
            search_o = oc;
            search_travel = tr;
        }
        e *= -0.75;
    }
    f32::max(search_o, 0.0)
}

/// Cg `normal(float3 p, float e)`.
fn normal(p: V3, e: f32) -> V3 {
    let d = dist(p);
    normalize(v3(
        dist(p + v3(e, 0.0, 0.0)) - d,
        dist(p + v3(0.0, e, 0.0)) - d,
        dist(p + v3(0.0, 0.0, e)) - d,
    ))
}

/// Cg `background(float3 p, float3 d)`.
fn background(d: V3) -> V3 {
    let d = rotate_z(d, -1.0);
    let color = lerp3(v3(0.9, 0.6, 0.2), v3(0.1, 0.4, 0.8), d.y * 0.5 + 0.5);
    color * (noise3(d) + 0.1 * pow(noise3(d * 4.0), 4.0))
}

/// Cg `object_material(float3 p, float3 d)`.
fn object_material(p: V3, d: V3) -> V3 {
    let n = normal(p, 0.02);
    let r = reflect(d, n);
    let ao = amb_occ(p);
    let reflectance = 1.0 + dot3(d, n);
    let or = occ(p, p + r * 10.0, 0.5, Some(10.0));
    let mut diffuse_acc = splat3(0.0);
    let t = I_GLOBAL_TIME * 0.1;
    for i in 0..3 {
        let fi = i as f32;
        let offs = v3(
            -(5.0 * (1.0 + fi) * 123.4 + t).sin(),
            -(4.0 * (1.0 + fi) * 723.4 + t).sin(),
            -(3.0 * (1.0 + fi) * 413.4 + t).sin(),
        );
        let lp = offs * 4.0;
        let ld = normalize(lp - p);
        let diffuse = dot3(ld, n);
        let od = if diffuse > 0.0 {
            occ(p, lp, 1.1, None)
        } else {
            0.0
        };
        let spec = pow(dot3(r, ld) * 0.5 + 0.5, 100.0);
        diffuse_acc += splat3(1.0) * diffuse * od + splat3(spec) * od * reflectance;
    }
    let color = if spheres(p) < flr(p) {
        let tex = v3(0.6, 0.0, 0.0) * v3(0.5, 0.5, 0.7);
        tex * diffuse_acc + background(r) * (0.1 + or * reflectance) * 1.8
    } else {
        let tex = v3(0.6, 0.3, 0.1);
        tex * diffuse_acc + background(r) * (0.1 + or * reflectance) * 1.5
    };
    color * f32::min(ao * 1.9, 1.0) * 0.8
}

/// Cg `main`: the colour of the pixel whose `TEX0` is (`tex_x`, `tex_y`).
pub fn main(tex_x: f32, tex_y: f32) -> [f32; 4] {
    let (color, grain) = main_parts(tex_x, tex_y);
    let color = color + grain;
    [color.x, color.y, color.z, 1.0]
}

/// Cg `main` in two parts: the colour before its last statement, and what that statement
/// adds to r, g and b alike, `hash(uv.xy + color.xy) * .02` (ill-conditioned: see
/// `cg_oracle.rs`). `td` is declared without a value in the source; it starts at 0 here, as
/// the compiled program's registers do.
pub fn main_parts(tex_x: f32, tex_y: f32) -> (V3, f32) {
    let frag = v2(tex_x * WIDTH, tex_y * HEIGHT);
    let mut uv = frag / v2(WIDTH, HEIGHT) - 0.5;
    uv.x *= WIDTH / HEIGHT;
    let mut mouse = splat3(-0.5);
    let t = I_GLOBAL_TIME * 0.5 + 30.0;
    mouse += v3(t.sin() * 0.05, t.sin() * 0.01, 0.0);
    let (offs0, offs1) = (5.0, 1.0);
    // Setup the camera
    let mut p = v3(0.0, 0.0, -1.0);
    p = rotate_x(p, mouse.y * 9.0 + offs0);
    p = rotate_y(p, mouse.x * 9.0 + offs1);
    p *= (p.y * 2.0 + 1.0).abs() + 1.0;
    let mut d = v3(uv.x, uv.y, 1.0);
    d.z -= length3(d) * 0.6;
    d = normalize(d);
    d = rotate_x(d, mouse.y * 9.0 + offs0);
    d = rotate_y(d, mouse.x * 9.0 + offs1);
    // Raymarching
    let (mut dd, mut td) = (0.0, 0.0);
    for _ in 0..RENDER_STEPS {
        dd = dist(p);
        p += d * dd;
        td += dd;
        if dd > 5.0 {
            break;
        }
    }
    let mut color = if dd < 0.1 {
        object_material(p, d)
    } else {
        background(d)
    };
    color = lerp3(background(d), color, 1.0 / (td * 0.1 + 1.0));
    color = lerp3(color * color, color, 1.4);
    color *= 0.8;
    color -= length2(uv) * 0.1;
    color = cc(color, 0.5, 0.5);
    (color, hash2(uv + color.xy()) * 0.02)
}
