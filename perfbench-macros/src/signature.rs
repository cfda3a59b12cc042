//! Which benchmark function shapes are accepted, and why the others are not.

use quote::ToTokens;
use syn::{FnArg, GenericParam, Ident, PatType, ReturnType, Safety, Signature, Type};

use crate::Errors;

/// How the generated runner calls the benchmark function.
pub(crate) enum Shape {
    /// `fn f() [-> T]`: measured as `b.iter(|| f())`.
    Plain,
    /// `fn f(n: T) [-> U]` with `args`: measured as `b.iter(|| f(black_box(n)))`; `T: Copy`.
    Arg(Box<Type>),
    /// `fn f(b: &mut Bencher)`: called as `f(b)`.
    Bencher,
    /// `fn f(b: &mut Bencher, n: T)` with `args`: called as `f(b, n)`.
    BencherArg,
}

/// Checks `sig` against the accepted shapes. `args` and `types` are those options' keys, if
/// given.
pub(crate) fn classify(
    sig: &Signature,
    args: Option<&Ident>,
    types: Option<&Ident>,
    (executor, threads): (Option<&Ident>, Option<&Ident>),
    errors: &mut Errors,
) -> Shape {
    let name = &sig.ident;
    match (&sig.asyncness, executor) {
        (Some(token), None) => errors.push(syn::Error::new_spanned(
            token,
            "an `async fn` benchmark needs an executor to await it on: \
             `#[perfbench(executor = EXPR)]`, such as a tokio `Runtime` \
             (`executor = tokio::runtime::Runtime::new().unwrap()`), \
             `perfbench::harness::executor::SmolExecutor` or `FuturesExecutor`",
        )),
        (None, Some(key)) => errors.push(syn::Error::new_spanned(
            key,
            "`executor` is for an `async fn` benchmark: make the function `async`, or leave \
             the option out",
        )),
        _ => {}
    }
    if let Safety::Unsafe(token) = &sig.safety {
        errors.push(syn::Error::new_spanned(
            token,
            "a benchmark can't be an `unsafe fn`: make it safe and put the unsafe call in an \
             `unsafe` block with a `// SAFETY:` note",
        ));
    }
    generics(sig, types, errors);
    if let Some(variadic) = &sig.variadic {
        errors.push(syn::Error::new_spanned(
            variadic,
            "a benchmark can't be variadic",
        ));
    }

    let params: Vec<&PatType> = sig
        .inputs
        .iter()
        .filter_map(|arg| match arg {
            FnArg::Typed(p) => Some(p),
            FnArg::Receiver(r) => {
                errors.push(syn::Error::new_spanned(
                    r,
                    "a benchmark is a free function, not a method: it can't take `self`",
                ));
                None
            }
        })
        .collect();
    for p in &params {
        if let Some(t) = impl_trait(&p.ty) {
            errors.push(syn::Error::new_spanned(
                t,
                "a benchmark can't take `impl Trait`: name a concrete type, or a type parameter \
                 filled by `types = [...]`",
            ));
        }
    }

    let shape = match params.as_slice() {
        [] => {
            if let Some(key) = args {
                errors.push(syn::Error::new_spanned(
                    key,
                    format!(
                        "`args` given, but `{name}` has no parameter to receive them: write \
                         `fn {name}(b: &mut Bencher, n: T)` or `fn {name}(n: T)`"
                    ),
                ));
            }
            Shape::Plain
        }
        [only] => match bencher_kind(&only.ty) {
            BencherKind::MutRef => {
                if let Some(key) = args {
                    errors.push(syn::Error::new_spanned(
                        key,
                        format!(
                            "`args` given, but `{name}` only takes the `&mut Bencher`: add a \
                             parameter to receive them, `fn {name}(b: &mut Bencher, n: T)`"
                        ),
                    ));
                }
                Shape::Bencher
            }
            BencherKind::Wrong => {
                errors.push(wrong_bencher(only));
                Shape::Bencher
            }
            BencherKind::No if args.is_some() => Shape::Arg(only.ty.clone()),
            BencherKind::No => {
                errors.push(syn::Error::new_spanned(
                    only,
                    format!(
                        "`{name}` takes a parameter but `#[perfbench]` has no `args = [...]` to \
                         fill it: a benchmark takes nothing, `b: &mut Bencher`, or (with `args`) \
                         one value"
                    ),
                ));
                Shape::Plain
            }
        },
        [first, second] => {
            match bencher_kind(&first.ty) {
                BencherKind::MutRef => {}
                BencherKind::Wrong => errors.push(wrong_bencher(first)),
                BencherKind::No => errors.push(syn::Error::new_spanned(
                    first,
                    "with two parameters, the first must be the bencher: `b: &mut Bencher`",
                )),
            }
            if args.is_none() {
                errors.push(syn::Error::new_spanned(
                    second,
                    format!(
                        "`{name}` takes an argument but `#[perfbench]` has no `args = [...]` to \
                         fill it: add `#[perfbench(args = [...])]`"
                    ),
                ));
            }
            Shape::BencherArg
        }
        [_, _, rest @ ..] => {
            let extra: Vec<_> = rest.iter().map(|p| p.to_token_stream()).collect();
            errors.push(syn::Error::new_spanned(
                quote::quote!(#(#extra),*),
                "too many parameters: a benchmark takes at most `b: &mut Bencher` and one \
                 argument (with `args = [...]`); pass a tuple or a struct for several values",
            ));
            Shape::BencherArg
        }
    };

    if let Some(key) = threads {
        let why = if args.is_some() {
            Some("`args`")
        } else if sig.asyncness.is_some() {
            Some("an `async fn`")
        } else if !matches!(shape, Shape::Plain) {
            Some("a `&mut Bencher`")
        } else {
            None
        };
        if let Some(why) = why {
            errors.push(syn::Error::new_spanned(
                key,
                format!(
                    "`threads` runs a function without parameters on N threads; with {why}, \
                     call `b.iter_threads(n, || ...)` in a body that takes the bencher"
                ),
            ));
        }
    }
    if let (Shape::Bencher | Shape::BencherArg, Some(token)) = (&shape, &sig.asyncness) {
        errors.push(syn::Error::new_spanned(
            token,
            "an `async fn` benchmark takes no `&mut Bencher`: the attribute awaits it on its \
             `executor`; to drive the bencher yourself, make it a plain `fn` and call \
             `b.to_async(executor).iter(|| async { ... })`",
        ));
    }
    if let (Shape::Bencher | Shape::BencherArg, ReturnType::Type(_, ty)) = (&shape, &sig.output) {
        errors.push(syn::Error::new_spanned(
            ty,
            "a benchmark that takes `&mut Bencher` returns nothing: return the value from the \
             closure given to `b.iter` instead, which keeps it from being optimised away",
        ));
    }
    shape
}

/// Lifetimes are fine; one type parameter with `types`, filled by each type in turn; no
/// constants.
fn generics(sig: &Signature, types: Option<&Ident>, errors: &mut Errors) {
    let name = &sig.ident;
    let mut type_params = Vec::new();
    for param in &sig.generics.params {
        match param {
            GenericParam::Type(t) => type_params.push(t),
            GenericParam::Const(c) => errors.push(syn::Error::new_spanned(
                c,
                "a benchmark can't be generic over constants: `#[perfbench]` registers concrete \
                 functions; write a small wrapper per value",
            )),
            GenericParam::Lifetime(_) => {}
        }
    }
    let names = type_params
        .iter()
        .map(|t| format!("`{}`", t.ident))
        .collect::<Vec<_>>()
        .join(", ");
    match (types, type_params.as_slice()) {
        (None, []) | (Some(_), [_]) => {}
        (None, [only]) => errors.push(syn::Error::new_spanned(
            only,
            format!(
                "`{name}` is generic over {names}: say which types to run it with, \
                 `#[perfbench(types = [u8, u64])]`"
            ),
        )),
        (None, [_, rest @ ..]) | (Some(_), [_, rest @ ..]) => {
            let extra: Vec<_> = rest.iter().map(|p| p.to_token_stream()).collect();
            errors.push(syn::Error::new_spanned(
                quote::quote!(#(#extra),*),
                format!(
                    "`{name}` has {} type parameters ({names}); a benchmark has at most one, \
                     filled by `types = [...]`: fix the others in the function, or make the \
                     one parameter a tuple",
                    type_params.len()
                ),
            ));
        }
        (Some(key), []) => errors.push(syn::Error::new_spanned(
            key,
            format!(
                "`types` given, but `{name}` has no type parameter to receive them: write \
                 `fn {name}<T>(...)`"
            ),
        )),
    }
}

enum BencherKind {
    /// `&mut Bencher`, the accepted form.
    MutRef,
    /// `Bencher`, `&Bencher`: the bencher, taken the wrong way.
    Wrong,
    /// Anything else.
    No,
}

/// Recognises the bencher by the last segment of its type's path (`Bencher`,
/// `perfbench::Bencher`).
fn bencher_kind(ty: &Type) -> BencherKind {
    fn is_bencher(ty: &Type) -> bool {
        match ty {
            Type::Path(p) => {
                p.qself.is_none() && p.path.segments.last().is_some_and(|s| s.ident == "Bencher")
            }
            Type::Paren(p) => is_bencher(&p.elem),
            Type::Group(g) => is_bencher(&g.elem),
            _ => false,
        }
    }
    match ty {
        Type::Reference(r) if is_bencher(&r.elem) => match r.mutability {
            Some(_) => BencherKind::MutRef,
            None => BencherKind::Wrong,
        },
        Type::Paren(p) => bencher_kind(&p.elem),
        Type::Group(g) => bencher_kind(&g.elem),
        other if is_bencher(other) => BencherKind::Wrong,
        _ => BencherKind::No,
    }
}

fn wrong_bencher(param: &PatType) -> syn::Error {
    syn::Error::new_spanned(
        &param.ty,
        "take the bencher by mutable reference: `b: &mut Bencher`",
    )
}

/// An `impl Trait` in a parameter type (which makes the function generic), if any.
fn impl_trait(ty: &Type) -> Option<&Type> {
    match ty {
        Type::ImplTrait(_) => Some(ty),
        Type::Reference(r) => impl_trait(&r.elem),
        Type::Paren(p) => impl_trait(&p.elem),
        Type::Group(g) => impl_trait(&g.elem),
        Type::Slice(s) => impl_trait(&s.elem),
        Type::Array(a) => impl_trait(&a.elem),
        Type::Tuple(t) => t.elems.iter().find_map(impl_trait),
        Type::Path(p) => p.path.segments.iter().find_map(|s| match &s.arguments {
            syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|a| match a {
                syn::GenericArgument::Type(t) => impl_trait(t),
                _ => None,
            }),
            _ => None,
        }),
        _ => None,
    }
}
