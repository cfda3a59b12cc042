//! The attribute's arguments: `#[perfbench(name = "x", args = [1, 2], types = [u8], ignore, ...)]`.
//!
//! Parsing is generic (`key`, `key = value`, or `key(...)`), so that a misspelt or repeated
//! option is reported as such rather than as a syntax error; each value is then checked on its
//! own and every problem found is reported together.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, Ident, Lit, LitStr, Path, Token, Type, UnOp};

use crate::arg_text::type_text;

use crate::Errors;

/// Every option, in the order the docs list them (`crate` last: few need it).
pub(crate) const KNOWN: &[&str] = &[
    "args",
    "types",
    "name",
    "group",
    "counters",
    "sample_size",
    "warm_up_time",
    "measurement_time",
    "throughput",
    "thresholds",
    "threads",
    "executor",
    "ignore",
    "crate",
];

/// The checked options. `None` is "not given".
#[derive(Default)]
pub(crate) struct Options {
    /// The `args = [...]` values, written as a literal list.
    pub args: Option<Vec<Expr>>,
    /// `args = EXPR` for any other expression (a constant, a range, a call): iterated at run
    /// time, each value's `Display` in the id.
    pub args_expr: Option<Expr>,
    /// The `args` key, when given (even with a bad value), for the signature checks.
    pub args_key: Option<Ident>,
    /// `types = [u8, Vec<u8>]`: each type, and its text in the ids (`Vec<u8>`).
    pub types: Option<Vec<(Type, String)>>,
    /// The `types` key, when given (even with a bad value), for the signature checks.
    pub types_key: Option<Ident>,
    pub name: Option<LitStr>,
    pub group: Option<LitStr>,
    pub counters: Option<Vec<LitStr>>,
    /// An expression of type `u32`.
    pub sample_size: Option<TokenStream>,
    /// Expressions of type `f64`.
    pub warm_up_time: Option<TokenStream>,
    pub measurement_time: Option<TokenStream>,
    /// `Bytes` or `Elements`, and an expression of type `u64`.
    pub throughput: Option<(Ident, Expr)>,
    /// `thresholds = ["COUNTER=PCT", ...]`: each counter's name and threshold as a fraction.
    pub thresholds: Option<Vec<(LitStr, f64)>>,
    pub ignore: bool,
    /// `crate = path`: where the `perfbench` crate is, for a renamed dependency.
    pub krate: Option<Path>,
    /// `executor = EXPR`: what an `async fn` benchmark's futures are awaited on.
    pub executor: Option<Expr>,
    /// `threads = [1, 2, 4, 0]`: the thread counts, one benchmark each.
    pub threads: Option<Vec<usize>>,
    /// The `threads` key, when given, for the signature checks.
    pub threads_key: Option<Ident>,
    /// The `executor` key, when given, for the signature checks.
    pub executor_key: Option<Ident>,
}

/// One `key`, `key = value` or `key(...)` as written.
struct RawOption {
    key: Ident,
    value: RawValue,
}

enum RawValue {
    Flag,
    Expr(Box<Expr>),
    Path(Path),
    Parens(TokenStream),
    /// `types = [...]`: types aren't expressions (`Vec<u8>`), so the list is kept as tokens.
    Brackets(TokenStream),
    /// `types = T` without the brackets.
    Type(Box<Type>),
}

impl Parse for RawOption {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        // `parse_any` so that `crate` (a keyword) is accepted as a key.
        let key = Ident::parse_any(input)?;
        let value = if input.peek(Token![=]) {
            input.parse::<Token![=]>()?;
            if key == "crate" {
                let path = input.call(Path::parse_mod_style).map_err(|e| {
                    syn::Error::new(e.span(), "`crate` takes a path: `crate = ::my_perfbench`")
                })?;
                RawValue::Path(path)
            } else if key == "types" && input.peek(syn::token::Bracket) {
                let content;
                syn::bracketed!(content in input);
                RawValue::Brackets(content.parse()?)
            } else if key == "types" {
                RawValue::Type(input.parse()?)
            } else {
                RawValue::Expr(input.parse()?)
            }
        } else if input.peek(syn::token::Paren) {
            let content;
            syn::parenthesized!(content in input);
            RawValue::Parens(content.parse()?)
        } else {
            RawValue::Flag
        };
        Ok(RawOption { key, value })
    }
}

impl RawOption {
    /// The whole option, for error spans.
    fn tokens(&self) -> TokenStream {
        let key = &self.key;
        match &self.value {
            RawValue::Flag => quote!(#key),
            RawValue::Expr(e) => quote!(#key = #e),
            RawValue::Path(p) => quote!(#key = #p),
            RawValue::Parens(t) => quote!(#key(#t)),
            RawValue::Brackets(t) => quote!(#key = [#t]),
            RawValue::Type(t) => quote!(#key = #t),
        }
    }
}

impl Options {
    /// Parses and checks the attribute's arguments; every problem is added to `errors`.
    pub(crate) fn parse(attr: TokenStream, errors: &mut Errors) -> Options {
        let mut options = Options::default();
        let raw = match syn::parse::Parser::parse2(
            Punctuated::<RawOption, Token![,]>::parse_terminated,
            attr,
        ) {
            Ok(raw) => raw,
            Err(e) => {
                errors.push(e);
                return options;
            }
        };
        let mut seen: Vec<String> = Vec::new();
        for option in raw {
            let key = option.key.unraw().to_string();
            if !KNOWN.contains(&key.as_str()) {
                errors.push(syn::Error::new_spanned(
                    &option.key,
                    format!(
                        "unknown option `{key}`; the options are: {}",
                        KNOWN.join(", ")
                    ),
                ));
                continue;
            }
            if seen.contains(&key) {
                errors.push(syn::Error::new_spanned(
                    option.tokens(),
                    format!("option `{key}` is given more than once"),
                ));
                continue;
            }
            seen.push(key.clone());
            if key == "args" {
                options.args_key = Some(option.key.clone());
            }
            if key == "types" {
                options.types_key = Some(option.key.clone());
            }
            if key == "executor" {
                options.executor_key = Some(option.key.clone());
            }
            if key == "threads" {
                options.threads_key = Some(option.key.clone());
            }
            if let Err(e) = options.set(&key, option) {
                errors.push(e);
            }
        }
        options
    }

    fn set(&mut self, key: &str, option: RawOption) -> syn::Result<()> {
        let whole = option.tokens();
        if key == "ignore" {
            return match option.value {
                RawValue::Flag => {
                    self.ignore = true;
                    Ok(())
                }
                _ => Err(syn::Error::new_spanned(
                    whole,
                    "`ignore` takes no value: write `#[perfbench(ignore)]`",
                )),
            };
        }
        if key == "crate" {
            return match option.value {
                RawValue::Path(path) => {
                    self.krate = Some(path);
                    Ok(())
                }
                _ => Err(syn::Error::new_spanned(
                    whole,
                    "`crate` takes a path: `crate = ::my_perfbench`",
                )),
            };
        }
        if key == "types" {
            return match option.value {
                RawValue::Brackets(list) => {
                    self.types = Some(types(&option.key, list)?);
                    Ok(())
                }
                RawValue::Type(ty) => Err(syn::Error::new_spanned(ty, TYPES_USAGE)),
                _ => Err(syn::Error::new_spanned(whole, TYPES_USAGE)),
            };
        }
        let RawValue::Expr(value) = option.value else {
            return Err(syn::Error::new_spanned(
                whole,
                format!("option `{key}` takes a value: `{key} = ...`"),
            ));
        };
        let value = *value;
        match key {
            "args" => {
                let Expr::Array(array) = value else {
                    self.args_expr = Some(value);
                    return Ok(());
                };
                if array.elems.is_empty() {
                    return Err(syn::Error::new_spanned(
                        array,
                        "`args` is empty: give at least one value, or leave the option out",
                    ));
                }
                self.args = Some(array.elems.into_iter().collect());
            }
            "name" => self.name = Some(non_empty_str(key, value)?),
            "group" => self.group = Some(non_empty_str(key, value)?),
            "counters" => self.counters = Some(counters(value)?),
            "sample_size" => self.sample_size = Some(sample_size(value)?),
            "warm_up_time" => self.warm_up_time = Some(seconds(key, value, false)?),
            "measurement_time" => self.measurement_time = Some(seconds(key, value, true)?),
            "throughput" => self.throughput = Some(throughput(value)?),
            "thresholds" => self.thresholds = Some(thresholds(value)?),
            "executor" => self.executor = Some(value),
            "threads" => self.threads = Some(threads(value)?),
            _ => unreachable!("every known option is handled"),
        }
        Ok(())
    }

    /// The `perfbench` crate's path in generated code.
    pub(crate) fn krate(&self) -> TokenStream {
        match &self.krate {
            Some(path) => path.to_token_stream(),
            None => quote!(::perfbench),
        }
    }
}

const TYPES_USAGE: &str = "`types` takes a list of types: `types = [u8, u64, String]`";

/// `types = [u8, Vec<u8>]`: each type and its text, which must differ between the types (it
/// names the benchmarks).
fn types(key: &Ident, list: TokenStream) -> syn::Result<Vec<(Type, String)>> {
    if list.is_empty() {
        return Err(syn::Error::new_spanned(
            quote!(#key = [#list]),
            "`types` is empty: give at least one type, or leave the option out",
        ));
    }
    let parsed = syn::parse::Parser::parse2(Punctuated::<Type, Token![,]>::parse_terminated, list)
        .map_err(|e| syn::Error::new(e.span(), format!("{e}: {TYPES_USAGE}")))?;
    let mut out: Vec<(Type, String)> = Vec::new();
    let mut errors = Errors::default();
    for ty in parsed {
        let text = type_text(ty.to_token_stream());
        if matches!(ty, Type::Infer(_) | Type::ImplTrait(_)) {
            errors.push(syn::Error::new_spanned(
                &ty,
                format!("`{text}` is not a type to run the benchmark with: name a concrete type"),
            ));
        } else if out.iter().any(|(_, t)| *t == text) {
            errors.push(syn::Error::new_spanned(
                &ty,
                format!("type `{text}` is listed twice"),
            ));
        } else {
            out.push((ty, text));
        }
    }
    errors.finish()?;
    Ok(out)
}

fn non_empty_str(key: &str, value: Expr) -> syn::Result<LitStr> {
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) if !s.value().is_empty() => Ok(s),
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => Err(syn::Error::new_spanned(
            s,
            format!("`{key}` can't be empty"),
        )),
        other => Err(syn::Error::new_spanned(
            other,
            format!("`{key}` takes a string literal: `{key} = \"...\"`"),
        )),
    }
}

fn counters(value: Expr) -> syn::Result<Vec<LitStr>> {
    const USAGE: &str = "`counters` takes a list of counter names: \
                         `counters = [\"instructions\", \"wall-time\"]`";
    let Expr::Array(array) = value else {
        return Err(syn::Error::new_spanned(value, USAGE));
    };
    if array.elems.is_empty() {
        return Err(syn::Error::new_spanned(
            array,
            "`counters` is empty: name at least one counter, or leave the option out",
        ));
    }
    let mut names: Vec<LitStr> = Vec::new();
    let mut errors = Errors::default();
    for elem in array.elems {
        match elem {
            Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) => {
                let name = s.value();
                if name.trim().is_empty() {
                    errors.push(syn::Error::new_spanned(s, "a counter name can't be empty"));
                } else if names.iter().any(|n| n.value() == name) {
                    errors.push(syn::Error::new_spanned(
                        s,
                        format!("counter `{name}` is listed twice"),
                    ));
                } else {
                    names.push(s);
                }
            }
            other => errors.push(syn::Error::new_spanned(other, USAGE)),
        }
    }
    errors.finish()?;
    Ok(names)
}

/// `thresholds = ["wall-time=10", "instructions=0.1"]`: counter names and percentages, checked
/// here so that a typo is a compile error, not a surprise in CI.
fn thresholds(value: Expr) -> syn::Result<Vec<(LitStr, f64)>> {
    const USAGE: &str = "`thresholds` takes a list of \"COUNTER=PCT\" strings: \
                         `thresholds = [\"wall-time=10\", \"instructions=0.1\"]`";
    let Expr::Array(array) = value else {
        return Err(syn::Error::new_spanned(value, USAGE));
    };
    if array.elems.is_empty() {
        return Err(syn::Error::new_spanned(
            array,
            "`thresholds` is empty: give at least one, or leave the option out",
        ));
    }
    let mut out: Vec<(LitStr, f64)> = Vec::new();
    let mut errors = Errors::default();
    for elem in array.elems {
        let Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) = elem
        else {
            errors.push(syn::Error::new_spanned(elem, USAGE));
            continue;
        };
        let text = s.value();
        let Some((name, pct)) = text.split_once('=') else {
            errors.push(syn::Error::new_spanned(&s, USAGE));
            continue;
        };
        let (name, pct) = (name.trim(), pct.trim());
        let pct = pct.strip_suffix('%').unwrap_or(pct);
        match pct.parse::<f64>() {
            _ if name.is_empty() => errors.push(syn::Error::new_spanned(&s, USAGE)),
            Ok(p) if p.is_finite() && p >= 0.0 => {
                if out.iter().any(|(n, _)| n.value() == name) {
                    errors.push(syn::Error::new_spanned(
                        &s,
                        format!("counter `{name}` has two thresholds"),
                    ));
                } else {
                    out.push((LitStr::new(name, s.span()), p / 100.0));
                }
            }
            _ => errors.push(syn::Error::new_spanned(
                &s,
                format!("`{pct}` is not a percentage (a number >= 0, like 10 or 0.5)"),
            )),
        }
    }
    errors.finish()?;
    Ok(out)
}

/// `sample_size = N`: a literal is checked here; any other expression must be a `u32` constant.
const THREADS_USAGE: &str =
    "`threads` takes a list of thread counts: `threads = [1, 2, 4, 0]` (0: the machine's available parallelism)";

/// `threads = [1, 2, 4, 0]`: whole numbers, each once.
fn threads(value: Expr) -> syn::Result<Vec<usize>> {
    let Expr::Array(array) = value else {
        return Err(syn::Error::new_spanned(value, THREADS_USAGE));
    };
    if array.elems.is_empty() {
        return Err(syn::Error::new_spanned(
            array,
            "`threads` is empty: give at least one thread count, or leave the option out",
        ));
    }
    let mut out = Vec::new();
    for elem in &array.elems {
        let n = match elem {
            Expr::Lit(ExprLit {
                lit: Lit::Int(int), ..
            }) => int.base10_parse::<usize>().ok(),
            _ => None,
        };
        match n {
            Some(n) if out.contains(&n) => {
                return Err(syn::Error::new_spanned(
                    elem,
                    format!("thread count {n} is listed twice"),
                ))
            }
            Some(n) => out.push(n),
            None => {
                return Err(syn::Error::new_spanned(
                    elem,
                    format!(
                        "`{}` is not a thread count: {THREADS_USAGE}",
                        elem.to_token_stream()
                    ),
                ))
            }
        }
    }
    Ok(out)
}

fn sample_size(value: Expr) -> syn::Result<TokenStream> {
    match &value {
        Expr::Lit(ExprLit {
            lit: Lit::Int(int), ..
        }) => match int.base10_parse::<u32>() {
            Ok(0) => Err(syn::Error::new_spanned(
                int,
                "`sample_size` must be at least 1",
            )),
            Ok(n) => Ok(quote!(#n)),
            Err(_) => Err(syn::Error::new_spanned(
                int,
                "`sample_size` must be a whole number that fits in a u32",
            )),
        },
        Expr::Lit(_) | Expr::Unary(_) | Expr::Array(_) | Expr::Call(_) => {
            Err(syn::Error::new_spanned(
                value,
                "`sample_size` takes a whole number: `sample_size = 50`",
            ))
        }
        _ => Ok(value.into_token_stream()),
    }
}

/// `warm_up_time = SECS` / `measurement_time = SECS`: an integer or float literal (seconds),
/// or any other expression of type `f64`.
fn seconds(key: &str, value: Expr, positive: bool) -> syn::Result<TokenStream> {
    let usage = || format!("`{key}` takes a number of seconds: `{key} = 2` or `{key} = 0.5`");
    let secs = match &value {
        Expr::Lit(ExprLit {
            lit: Lit::Int(int), ..
        }) => int.base10_parse::<f64>().ok().filter(|s| s.is_finite()),
        Expr::Lit(ExprLit {
            lit: Lit::Float(float),
            ..
        }) => float.base10_parse::<f64>().ok().filter(|s| s.is_finite()),
        Expr::Unary(unary) if matches!(unary.op, UnOp::Neg(_)) => {
            return Err(syn::Error::new_spanned(
                value,
                format!("`{key}` can't be negative"),
            ))
        }
        Expr::Lit(_) | Expr::Array(_) | Expr::Call(_) => {
            return Err(syn::Error::new_spanned(value, usage()))
        }
        _ => return Ok(value.into_token_stream()),
    };
    match secs {
        None => Err(syn::Error::new_spanned(value, usage())),
        Some(s) if positive && s <= 0.0 => Err(syn::Error::new_spanned(
            value,
            format!("`{key}` must be more than 0 seconds"),
        )),
        Some(s) => {
            let lit = proc_macro2::Literal::f64_suffixed(s);
            Ok(quote!(#lit))
        }
    }
}

/// `throughput = bytes(N)` or `elements(N)`, N a `u64` expression.
fn throughput(value: Expr) -> syn::Result<(Ident, Expr)> {
    const USAGE: &str =
        "`throughput` takes `bytes(N)` or `elements(N)`: `throughput = bytes(4096)`";
    let Expr::Call(call) = value else {
        return Err(syn::Error::new_spanned(value, USAGE));
    };
    let kind = match &*call.func {
        Expr::Path(p) if p.path.is_ident("bytes") => "Bytes",
        Expr::Path(p) if p.path.is_ident("elements") => "Elements",
        other => {
            return Err(syn::Error::new_spanned(
                other,
                "unknown throughput unit: write `bytes(N)` or `elements(N)`",
            ))
        }
    };
    let kind = Ident::new(kind, call.func.span());
    let mut count = call.args.into_iter();
    let (Some(n), None) = (count.next(), count.next()) else {
        return Err(syn::Error::new(
            kind.span(),
            "a throughput takes one count: `bytes(4096)`",
        ));
    };
    if let Expr::Lit(ExprLit { lit, .. }) = &n {
        let ok = matches!(lit, Lit::Int(int) if int.base10_parse::<u64>().is_ok());
        if !ok {
            return Err(syn::Error::new_spanned(
                lit,
                "a throughput count is a whole number that fits in a u64",
            ));
        }
    }
    Ok((kind, n))
}
