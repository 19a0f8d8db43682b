#!/usr/bin/env python3
"""Derives the series coefficients of Karney's geodesic algorithms (C. F. F. Karney, "Algorithms for
geodesics", J. Geodesy 87:43-55, 2013) from their defining integrals, and prints them as the Swift tables in
Sources/LodestoneLocation/GeodesicSeries.swift. Exact rational arithmetic (sympy); about a minute.

Usage: python3 Tests/Oracles/geodesic_series.py > /tmp/GeodesicSeries.swift

Definitions (Karney 2013, section 3), with k^2 = e'^2 cos^2(alpha0), eps = (sqrt(1+k^2) - 1)/(sqrt(1+k^2) + 1)
(so that (1 - eps) sqrt(1 + k^2 sin^2 s) = |1 - eps exp(2is)|) and n the third flattening:
  I1(s) = int_0^s sqrt(1 + k^2 sin^2 t) dt                       = A1 (s + sum_l C1l sin 2ls)   eq. 15-18
  tau = s + sum_l C1l sin 2ls   <=>   s = tau + sum_l C1'l sin 2l tau                       eq. 20-21
  I2(s) = int_0^s dt / sqrt(1 + k^2 sin^2 t)                     = A2 (s + sum_l C2l sin 2ls)   eq. 41-43
  I3(s) = int_0^s (2 - f) dt / (1 + (1 - f) sqrt(1 + k^2 sin^2 t)) = A3 (s + sum_l C3l sin 2ls)   eq. 23-25
  I4(s) = -int_{pi/2}^s (t(e'^2) - t(k^2 sin^2 u)) / (e'^2 - k^2 sin^2 u) sin(u)/2 du
        = sum_l C4l cos((2l+1) s),  t(x) = x + sqrt(1/x + 1) asinh(sqrt x)                    eq. 58-59
A1 and A2 are printed as (1 - eps) A1 and A2 / (1 - eps) (series in eps^2); C1, C1', C2 as polynomials in eps
up to eps^6; A3, C3 and C4 as polynomials in eps whose coefficients are polynomials in n, truncated at total
degree 5 in (n, eps) for A3, C3 and C4 (they are multiplied by f or e^2).
"""
import sympy as sp

ORDER = 6
eps, n, x = sp.symbols("eps n x")


def trunc(expr, max_total):
    """Keep the terms of a polynomial in (n, eps) of total degree <= max_total."""
    expr = sp.expand(expr)
    if expr == 0:
        return sp.Integer(0)
    poly = sp.Poly(expr, n, eps)
    return sum((c * n ** a * eps ** b for (a, b), c in poly.terms() if a + b <= max_total), sp.Integer(0))


class Fourier:
    """A trigonometric polynomial sum_j c_j exp(i j theta) with coefficients polynomial in (n, eps),
    truncated at total degree `top`."""

    def __init__(self, coeffs, top):
        self.top = top
        self.c = {j: trunc(v, top) for j, v in coeffs.items()}
        self.c = {j: v for j, v in self.c.items() if v != 0}

    def __add__(self, other):
        out = dict(self.c)
        for j, v in other.c.items():
            out[j] = out.get(j, 0) + v
        return Fourier(out, self.top)

    def scale(self, s):
        return Fourier({j: s * v for j, v in self.c.items()}, self.top)

    def __mul__(self, other):
        out = {}
        for j, a in self.c.items():
            for k, b in other.c.items():
                out[j + k] = out.get(j + k, 0) + a * b
        return Fourier(out, self.top)

    def derivative(self):
        return Fourier({j: sp.I * j * v for j, v in self.c.items()}, self.top)

    def cos_coefficient(self, j):
        """Coefficient of cos(j theta) (the series is real and even)."""
        return sp.expand(self.c.get(j, 0) + (self.c.get(-j, 0) if j else 0))

    def sin_coefficient(self, j):
        """Coefficient of sin(j theta) (the series is real and odd)."""
        return sp.expand(sp.I * (self.c.get(j, 0) - self.c.get(-j, 0)))


def binomial_series(power, count):
    """b_m with (1 - y)^power = sum_m b_m y^m."""
    return [sp.binomial(sp.Rational(power), m) * (-1) ** m for m in range(count)]


def abs_power(power, top):
    """|1 - eps exp(i theta)|^(2 power) = (1 - eps z)^power (1 - eps/z)^power as a Fourier series."""
    b = binomial_series(power, top + 1)
    left = Fourier({m: b[m] * eps ** m for m in range(top + 1)}, top)
    right = Fourier({-m: b[m] * eps ** m for m in range(top + 1)}, top)
    return left * right


def series_in(expr, var, top):
    return sp.expand(sp.series(expr, var, 0, top + 1).removeO())


# I1 and I2 -------------------------------------------------------------------------------------------------
# Theta = 2s: integrating cos(j theta) ds gives sin(2 j s)/(2 j).
f1 = abs_power(sp.Rational(1, 2), ORDER)          # (1 - eps) sqrt(1 + k^2 sin^2 s)
f2 = abs_power(sp.Rational(-1, 2), ORDER)         # sqrt(1 + k^2 sin^2 s)^-1 / (1 - eps)
A1_times = f1.cos_coefficient(0)                  # (1 - eps) A1
A2_over = f2.cos_coefficient(0)                   # A2 / (1 - eps)
C1 = [None] + [trunc(series_in(f1.cos_coefficient(j) / (2 * j) / A1_times, eps, ORDER), ORDER) for j in range(1, ORDER + 1)]
C2 = [None] + [trunc(series_in(f2.cos_coefficient(j) / (2 * j) / A2_over, eps, ORDER), ORDER) for j in range(1, ORDER + 1)]

# C1': Lagrange reversion of tau = s + F(s), F = sum C1l sin 2ls: with h = -F,
# s = tau + sum_{m>=1} (1/m!) d^{m-1}/dtau^{m-1} [h(tau)^m].   Here phi = 2 tau.
h = Fourier({}, ORDER)
for l in range(1, ORDER + 1):
    # -C sin(l phi) = -C (z^l - z^-l)/(2i)
    h = h + Fourier({l: -C1[l] / (2 * sp.I), -l: C1[l] / (2 * sp.I)}, ORDER)
total = Fourier({}, ORDER)
power = Fourier({0: 1}, ORDER)
for m in range(1, ORDER + 1):
    power = power * h
    term = power
    for _ in range(m - 1):
        # d/dtau = 2 d/dphi
        term = term.derivative().scale(2)
    total = total + term.scale(sp.Rational(1, sp.factorial(m)))
C1p = [None] + [trunc(total.sin_coefficient(l), ORDER) for l in range(1, ORDER + 1)]

# I3: integrand = 2 / ((1 + n) + (1 - n) w), w = |1 - eps z| / (1 - eps) = 1 + delta;
#   = 1 / (1 + (1 - n) delta / 2) = sum_m (-(1 - n) delta / 2)^m.  Total degree 5 (multiplied by f).
TOP3 = ORDER - 1
inv1 = series_in(1 / (1 - eps), eps, TOP3)
w = Fourier({j: v * inv1 for j, v in abs_power(sp.Rational(1, 2), TOP3).c.items()}, TOP3)
delta = w + Fourier({0: -1}, TOP3)
q = delta.scale(-(1 - n) / 2)
integrand3 = Fourier({0: 1}, TOP3)
power = Fourier({0: 1}, TOP3)
for m in range(1, TOP3 + 1):
    power = power * q
    integrand3 = integrand3 + power
A3 = trunc(integrand3.cos_coefficient(0), TOP3)


def double_series_ratio(num, den, top):
    """num / den as a polynomial in (n, eps) truncated at total degree top (den = 1 + O(n, eps))."""
    t = sp.symbols("t")
    expr = (num / den).subs({n: t * n, eps: t * eps}, simultaneous=True)
    return trunc(series_in(expr, t, top).subs(t, 1), top)


C3 = [None] + [double_series_ratio(integrand3.cos_coefficient(j) / (2 * j), A3, TOP3) for j in range(1, ORDER)]

# I4 ---------------------------------------------------------------------------------------------------------
tx = series_in(x + sp.sqrt(1 / x + 1) * sp.asinh(sp.sqrt(x)), x, ORDER)
tau_j = [tx.coeff(x, j) for j in range(ORDER + 1)]
ep2 = 4 * n / (1 - n) ** 2
k2 = 4 * eps / (1 - eps) ** 2
t = sp.symbols("t")
ep2_s = series_in(ep2.subs(n, t * n), t, ORDER)
k2_s = series_in(k2.subs(eps, t * eps), t, ORDER)
C4 = [sp.Integer(0)] * ORDER
for j in range(1, ORDER + 1):
    for mm in range(j):
        p = j - 1 - mm                            # power of y = k^2 sin^2 s
        coeff_xy = tau_j[j] * ep2_s ** mm * k2_s ** p
        m = 2 * p + 1                             # sin^m s = 2^(1-m) sum_k (-1)^((m-1)/2 + k) C(m,k) sin((m-2k) s)
        for k in range(m + 1):
            l2 = m - 2 * k
            if l2 <= 0:
                continue
            a = sp.Rational((-1) ** ((m - 1) // 2 + k) * sp.binomial(m, k), 2 ** (m - 1))
            # integrand -(g/2) sin s; int_{pi/2}^s sin(l2 u) du = -cos(l2 s)/l2
            l = (l2 - 1) // 2
            if l < ORDER:
                C4[l] += coeff_xy * a / (2 * l2)
C4 = [trunc(series_in(sp.expand(c), t, TOP3).subs(t, 1), TOP3) for c in C4]


# Output ------------------------------------------------------------------------------------------------------
def rational(q):
    q = sp.Rational(q)
    return f"{q.p}.0 / {q.q}.0" if q.q != 1 else f"{q.p}.0"


def eps_poly(expr, degree):
    expr = sp.expand(expr)
    return [expr.coeff(eps, k) for k in range(degree + 1)]


def n_poly(expr, degree):
    expr = sp.expand(expr)
    return [expr.coeff(n, k) for k in range(degree + 1)]


def emit(name, doc, rows):
    print(f"    /// {doc}")
    print(f"    static let {name}: [Double] = [")
    for comment, values in rows:
        print("        " + ", ".join(rational(v) for v in values) + f",   // {comment}")
    print("    ]")


print("// Generated by Tests/Oracles/geodesic_series.py from the defining integrals; do not edit by hand.")
print("// Source: C. F. F. Karney, \"Algorithms for geodesics\", J. Geodesy 87:43-55 (2013), eqs. 15-25, 41-43, 58-59.")
print("")
print("/// Series coefficients of the geodesic integrals, as polynomials (lowest power first).")
print("enum GeodesicSeries {")
emit("a1", "(1 − ε)·A1 in powers of ε (eq. 17).", [("ε^0 … ε^6", eps_poly(A1_times, ORDER))])
emit("a2", "A2 / (1 − ε) in powers of ε (eq. 42).", [("ε^0 … ε^6", eps_poly(A2_over, ORDER))])
emit("c1", "C1l, l = 1…6, each in powers of ε^0 … ε^6 (eq. 18).", [(f"C1{l}", eps_poly(C1[l], ORDER)) for l in range(1, ORDER + 1)])
emit("c1p", "C1′l, l = 1…6, each in powers of ε^0 … ε^6 (eq. 21).", [(f"C1'{l}", eps_poly(C1p[l], ORDER)) for l in range(1, ORDER + 1)])
emit("c2", "C2l, l = 1…6, each in powers of ε^0 … ε^6 (eq. 43).", [(f"C2{l}", eps_poly(C2[l], ORDER)) for l in range(1, ORDER + 1)])
emit("a3", "A3: for ε^0 … ε^5, the coefficient as a polynomial in n^0 … n^5 (eq. 24).",
     [(f"ε^{k}", n_poly(sp.expand(A3).coeff(eps, k), TOP3)) for k in range(TOP3 + 1)])
emit("c3", "C3l, l = 1…5: for each l and ε^0 … ε^5, a polynomial in n^0 … n^5 (eq. 25).",
     [(f"C3{l} ε^{k}", n_poly(sp.expand(C3[l]).coeff(eps, k), TOP3)) for l in range(1, ORDER) for k in range(TOP3 + 1)])
emit("c4", "C4l, l = 0…5: for each l and ε^0 … ε^5, a polynomial in n^0 … n^5 (eq. 59).",
     [(f"C4{l} ε^{k}", n_poly(sp.expand(C4[l]).coeff(eps, k), TOP3)) for l in range(ORDER) for k in range(TOP3 + 1)])
print("}")
