//! Sine and cosine for the drawings' circle layout ([`super::svg`]), the same bits on every target.
//!
//! A copy of the `libm` crate's `sin` and `cos` (version 0.2.16, MIT; its files
//! `src/math/sin.rs`, `cos.rs`, `k_sin.rs`, `k_cos.rs` and `rem_pio2.rs`), a port of musl's
//! (`src/math/sin.c`, `cos.c`, `__sin.c`, `__cos.c`, `__rem_pio2.c`), itself from FreeBSD's msun
//! (`s_sin.c`, `s_cos.c`, `k_sin.c`, `k_cos.c`, `e_rem_pio2.c`, the last optimized by Bruce D.
//! Evans). Why a copy: on wasm32-unknown-unknown `f64::sin` and `f64::cos` link compiler-builtins'
//! port of the same code, with the reduction of arguments past 2^20·π/2 (`rem_pio2_large`, about
//! 3 kB of the web demo's module gzipped) that the layout, whose angles lie in [-π/2, 3π/2), never
//! needs. Left out: that large-argument path (for |x| ≥ 2^20·π/2 this returns what the medium
//! path gives, inaccurate but no panic) and the `force_eval!` lines that only raise floating-point
//! flags; the constants are written by their bits (libm's comments give them beside the decimals). For every other argument the result is bit for bit `libm::sin(x)` and `libm::cos(x)`
//! (the tests below compare them with the crate), on every target: native builds, which call the
//! platform's libm for `f64::sin`, draw the same coordinates as the WebAssembly module.
//!
//! The notice that goes with the FreeBSD code:
//!
//! ```text
//! Copyright (C) 1993 by Sun Microsystems, Inc. All rights reserved.
//!
//! Developed at SunPro, a Sun Microsystems, Inc. business.
//! Permission to use, copy, modify, and distribute this
//! software is freely granted, provided that this notice
//! is preserved.
//! ```

/// `(sin x, cos x)`, as `libm`'s `sin` and `cos` give them for |x| < 2^20·π/2 (module doc).
pub(crate) fn sin_cos(x: f64) -> (f64, f64) {
    // The high word of |x|.
    let ix = (x.to_bits() >> 32) as u32 & 0x7fff_ffff;
    // |x| ~< π/4: no reduction. sin: x itself below 2^-26; cos: 1 below 2^-27·√2.
    if ix <= 0x3fe9_21fb {
        let s = if ix < 0x3e50_0000 { x } else { k_sin(x, 0.0, 0) };
        let c = if ix < 0x3e46_a09e { 1.0 } else { k_cos(x, 0.0) };
        return (s, c);
    }
    // sin and cos of Inf or NaN are NaN.
    if ix >= 0x7ff0_0000 {
        #[allow(clippy::eq_op)] // libm's NaN: x - x
        let nan = x - x;
        return (nan, nan);
    }
    // x = n·π/2 + y0 + y1, |y0 + y1| ~<= π/4.
    let (n, y0, y1) = rem_pio2(x);
    match n & 3 {
        0 => (k_sin(y0, y1, 1), k_cos(y0, y1)),
        1 => (k_cos(y0, y1), -k_sin(y0, y1, 1)),
        2 => (-k_sin(y0, y1, 1), -k_cos(y0, y1)),
        _ => (-k_cos(y0, y1), k_sin(y0, y1, 1)),
    }
}

const S1: f64 = f64::from_bits(0xBFC5_5555_5555_5549); // -1.66666666666666324348e-1
const S2: f64 = f64::from_bits(0x3F81_1111_1110_F8A6); // 8.33333333332248946124e-3
const S3: f64 = f64::from_bits(0xBF2A_01A0_19C1_61D5); // -1.98412698298579493134e-4
const S4: f64 = f64::from_bits(0x3EC7_1DE3_57B1_FE7D); // 2.75573137070700676789e-6
const S5: f64 = f64::from_bits(0xBE5A_E5E6_8A2B_9CEB); // -2.50507602534068634195e-8
const S6: f64 = f64::from_bits(0x3DE5_D93A_5ACF_D57C); // 1.58969099521155010221e-10

/// Sine on ~[-π/4, π/4] of `x + y` (`y` the tail of `x`, taken as 0 when `iy` is 0): a
/// polynomial of degree 13 (libm's `k_sin`).
fn k_sin(x: f64, y: f64, iy: i32) -> f64 {
    let z = x * x;
    let w = z * z;
    let r = S2 + z * (S3 + z * S4) + z * w * (S5 + z * S6);
    let v = z * x;
    if iy == 0 {
        x + v * (S1 + z * r)
    } else {
        x - ((z * (0.5 * y - v * r) - y) - v * S1)
    }
}

const C1: f64 = f64::from_bits(0x3FA5_5555_5555_554C); // 4.16666666666666019037e-2
const C2: f64 = f64::from_bits(0xBF56_C16C_16C1_5177); // -1.38888888888741095749e-3
const C3: f64 = f64::from_bits(0x3EFA_01A0_19CB_1590); // 2.48015872894767294178e-5
const C4: f64 = f64::from_bits(0xBE92_7E4F_809C_52AD); // -2.75573143513906633035e-7
const C5: f64 = f64::from_bits(0x3E21_EE9E_BDB4_B1C4); // 2.08757232129817482790e-9
const C6: f64 = f64::from_bits(0xBDA8_FAE9_BE88_38D4); // -1.13596475577881948265e-11

/// Cosine on ~[-π/4, π/4] of `x + y` (`y` the tail of `x`): 1 - x²/2 and a polynomial of degree
/// 14, summed as w + (tmp + (r - x·y)) with 1 - x²/2 = w + tmp exactly (libm's `k_cos`).
fn k_cos(x: f64, y: f64) -> f64 {
    let z = x * x;
    let w = z * z;
    let r = z * (C1 + z * (C2 + z * C3)) + w * w * (C4 + z * (C5 + z * C6));
    let hz = 0.5 * z;
    let w = 1.0 - hz;
    w + (((1.0 - w) - hz) + (z * r - x * y))
}

/// 1.5 / f64::EPSILON: adding and subtracting it rounds to an integer.
const TO_INT: f64 = 1.5 / f64::EPSILON;
/// 53 bits of 2/π.
const INV_PIO2: f64 = f64::from_bits(0x3FE4_5F30_6DC9_C883); // 6.36619772367581382433e-1
/// The first 33 bits of π/2.
const PIO2_1: f64 = f64::from_bits(0x3FF9_21FB_5440_0000); // 1.57079632673412561417
/// π/2 - PIO2_1.
const PIO2_1T: f64 = f64::from_bits(0x3DD0_B461_1A62_6331); // 6.07710050650619224932e-11
/// The second 33 bits of π/2.
const PIO2_2: f64 = f64::from_bits(0x3DD0_B461_1A60_0000); // 6.07710050630396597660e-11
/// π/2 - (PIO2_1 + PIO2_2).
const PIO2_2T: f64 = f64::from_bits(0x3BA3_198A_2E03_7073); // 2.02226624879595063154e-21
/// The third 33 bits of π/2.
const PIO2_3: f64 = f64::from_bits(0x3BA3_198A_2E00_0000); // 2.02226624871116645580e-21
/// π/2 - (PIO2_1 + PIO2_2 + PIO2_3).
const PIO2_3T: f64 = f64::from_bits(0x397B_839A_2520_49C1); // 8.47842766036889956997e-32

/// `(n, y0, y1)` with x = n·π/2 + y0 + y1 and y0 + y1 in ~[-π/4, π/4], for |x| ~> π/4 (the
/// caller handles smaller |x|): libm's `rem_pio2` without its path for |x| ≥ 2^20·π/2.
fn rem_pio2(x: f64) -> (i32, f64, f64) {
    let sign = (x.to_bits() >> 63) as i32;
    let ix = (x.to_bits() >> 32) as u32 & 0x7fff_ffff;

    // n·π/2 off x in up to three rounds of 33 bits of π/2 each (Cody and Waite).
    fn medium(x: f64, ix: u32) -> (i32, f64, f64) {
        // rint(x / (π/2)), in round-to-nearest.
        let tmp = x * INV_PIO2 + TO_INT;
        let f_n = tmp - TO_INT;
        let n = f_n as i32;
        let mut r = x - f_n * PIO2_1;
        let mut w = f_n * PIO2_1T; // first round, good to 85 bits
        let mut y0 = r - w;
        let ey = (y0.to_bits() >> 52) as i32 & 0x7ff;
        let ex = (ix >> 20) as i32;
        if ex - ey > 16 {
            // second round, good to 118 bits
            let t = r;
            w = f_n * PIO2_2;
            r = t - w;
            w = f_n * PIO2_2T - ((t - r) - w);
            y0 = r - w;
            let ey = (y0.to_bits() >> 52) as i32 & 0x7ff;
            if ex - ey > 49 {
                // third round, good to 151 bits, covers all cases
                let t = r;
                w = f_n * PIO2_3;
                r = t - w;
                w = f_n * PIO2_3T - ((t - r) - w);
                y0 = r - w;
            }
        }
        let y1 = (r - y0) - w;
        (n, y0, y1)
    }

    // x ∓ k·π/2 for k = 1..=4 in one round, as libm's rem_pio2 (with k as f64 and the sign).
    fn near(x: f64, k: i32, sign: i32) -> (i32, f64, f64) {
        let kf = f64::from(k);
        if sign == 0 {
            let z = x - kf * PIO2_1;
            let y0 = z - kf * PIO2_1T;
            let y1 = (z - y0) - kf * PIO2_1T;
            (k, y0, y1)
        } else {
            let z = x + kf * PIO2_1;
            let y0 = z + kf * PIO2_1T;
            let y1 = (z - y0) + kf * PIO2_1T;
            (-k, y0, y1)
        }
    }

    if ix <= 0x400f_6a7a {
        // |x| ~<= 5π/4
        if (ix & 0xfffff) == 0x921fb {
            // |x| ~= π/2 or 2π/2: cancellation, so the medium case
            return medium(x, ix);
        }
        // |x| ~<= 3π/4, or not
        return near(x, if ix <= 0x4002_d97c { 1 } else { 2 }, sign);
    }
    if ix <= 0x401c_463b {
        // |x| ~<= 9π/4
        if ix <= 0x4015_fdbc {
            // |x| ~<= 7π/4
            if ix == 0x4012_d97c {
                // |x| ~= 3π/2
                return medium(x, ix);
            }
            return near(x, 3, sign);
        }
        if ix == 0x4019_21fb {
            // |x| ~= 4π/2
            return medium(x, ix);
        }
        return near(x, 4, sign);
    }
    // |x| ~< 2^20·π/2, medium size; larger (never passed here) takes the same path.
    medium(x, ix)
}

#[cfg(test)]
mod tests {
    use super::sin_cos;

    /// `sin_cos(x)` against the `libm` crate, bit for bit.
    fn same(x: f64) {
        let (s, c) = sin_cos(x);
        assert_eq!(s.to_bits(), libm::sin(x).to_bits(), "sin({x:e}) = {s:e}, libm {:e}", libm::sin(x));
        assert_eq!(c.to_bits(), libm::cos(x).to_bits(), "cos({x:e}) = {c:e}, libm {:e}", libm::cos(x));
    }

    /// xorshift64*: a fixed stream of pseudo-random bits.
    fn next(state: &mut u64) -> u64 {
        *state ^= *state >> 12;
        *state ^= *state << 25;
        *state ^= *state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A uniform f64 in [0, 1).
    fn unit(state: &mut u64) -> f64 {
        (next(state) >> 11) as f64 / (1u64 << 53) as f64
    }

    #[test]
    fn every_layout_angle_is_libms() {
        // svg::layout's angles, as it computes them.
        for n in 1..=5000usize {
            same(std::f64::consts::PI / n as f64);
            for start in [std::f64::consts::PI, -std::f64::consts::FRAC_PI_2] {
                for i in 0..n {
                    same(start + std::f64::consts::TAU * i as f64 / n as f64);
                }
            }
        }
    }

    #[test]
    fn random_and_special_arguments_are_libms() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        // Uniform in [-10, 10].
        for _ in 0..4_000_000 {
            same(20.0 * unit(&mut state) - 10.0);
        }
        // Uniform in [-1e5, 1e5], and with a uniform exponent down to 2^-60 (the small paths).
        for _ in 0..1_000_000 {
            same(2e5 * unit(&mut state) - 1e5);
            let e = (unit(&mut state) * 77.0) as i32 - 60;
            let sign = if next(&mut state) & 1 == 0 { 1.0 } else { -1.0 };
            same(sign * (1.0 + unit(&mut state)) * 2f64.powi(e));
        }
        // Every branch boundary of the reduction's high word, and the multiples of π/4 near them.
        for hi in [
            0x3e46_a09e_u64,
            0x3e50_0000,
            0x3fe9_21fb,
            0x3ff9_21fb,
            0x4002_d97c,
            0x4009_21fb,
            0x400f_6a7a,
            0x4012_d97c,
            0x4015_fdbc,
            0x4019_21fb,
            0x401c_463b,
            0x4139_21fa,
        ] {
            for lo in [0u64, 1, 0x5444_2d18, 0x7fff_ffff, 0xffff_fffe] {
                for d in [-1i64, 0, 1] {
                    let x = f64::from_bits(((hi << 32) | lo).wrapping_add_signed(d));
                    same(x);
                    same(-x);
                }
            }
        }
        for k in -4000..=4000 {
            let x = f64::from(k) * std::f64::consts::FRAC_PI_4;
            for d in [-2i64, -1, 0, 1, 2] {
                same(f64::from_bits(x.to_bits().wrapping_add_signed(d)));
            }
        }
        for x in [0.0, -0.0, f64::MIN_POSITIVE, 5e-324, 1e-300, 1.0, 1e5, 1.6e6] {
            same(x);
            same(-x);
        }
        let (s, c) = sin_cos(f64::NAN);
        assert!(s.is_nan() && c.is_nan());
        let (s, c) = sin_cos(f64::INFINITY);
        assert!(s.is_nan() && c.is_nan());
        // Past 2^20·π/2 (never passed): the medium path's numbers, no panic.
        for x in [1.7e6, 1e20, 1e300, f64::MAX] {
            let _ = sin_cos(x);
            let _ = sin_cos(-x);
        }
    }
}
