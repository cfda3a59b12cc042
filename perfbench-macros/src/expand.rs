//! The expansion: the function as written, then one registered [`Entry`] for it.
//!
//! ```text
//! fn sum(b: &mut Bencher, n: usize) { ... }          // untouched, still callable
//! const _: () = {                                    // anonymous: nothing leaks into the module
//!     fn __perfbench_run(b: &mut Bencher, arg: usize) {
//!         match arg { 0 => sum(b, 64), 1 => sum(b, 1024), _ => panic!(..) }
//!     }
//!     #[linkme::distributed_slice(BENCHMARKS)]
//!     static __PERFBENCH_ENTRY: Entry = Entry { name: "sum", args: &["64", "1024"], .. };
//! };
//! ```
//!
//! With `types = [u8, String]` the function is generic, and each type gets its own runner,
//! calling it with the type given (`sort::<u8>`); the entry lists them:
//!
//! ```text
//! const _: () = {
//!     fn __perfbench_run_0(b: &mut Bencher, arg: usize) { sort::<u8>(b) }
//!     fn __perfbench_run_1(b: &mut Bencher, arg: usize) { sort::<String>(b) }
//!     static __PERFBENCH_ENTRY: Entry = Entry {
//!         name: "sort",
//!         types: &[EntryType { name: "u8", run: __perfbench_run_0 }, ..],
//!         run: __perfbench_run_0,
//!         ..
//!     };
//! };
//! ```
//!
//! Spans and `#![forbid(unsafe_code)]`: linkme turns the static into a `#[used]
//! #[link_section]` item with an `unsafe` type check, which the `unsafe_code` lint would report
//! in the user's crate if those tokens carried the user's spans. They don't: they are written
//! by linkme's own macros, and everything generated here has the call-site span except what
//! must point into the user's code (the function's name, `args` values, `types` entries, the
//! `Copy` check), so rustc treats the registration as another crate's macro output and lints
//! none of it. Keep it that way: never `quote_spanned!` a user span onto the static or its
//! attributes (`tests/attr_forbid_unsafe.rs` checks this).
//!
//! [`Entry`]: https://docs.rs/perfbench/latest/perfbench/harness/entry/struct.Entry.html

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, ItemFn, Lit, LitStr};

use crate::arg_text::arg_text;
use crate::options::Options;
use crate::signature::{classify, Shape};
use crate::Errors;

/// `#[perfbench(attr)] item` => the item and its registration, or the item and the errors.
pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let options = Options::parse(attr, &mut errors);
    let func: ItemFn = match syn::parse2(item.clone()) {
        Ok(func) => func,
        Err(_) => {
            errors.push(not_a_function(&item));
            return with_errors(item, errors);
        }
    };
    let shape = classify(
        &func.sig,
        options.args_key.as_ref(),
        options.types_key.as_ref(),
        (options.executor_key.as_ref(), options.threads_key.as_ref()),
        &mut errors,
    );
    if errors.is_empty() {
        register(&func, &options, &shape)
    } else {
        // Keep the function, so that the only errors are ours (no "cannot find function").
        with_errors(func.into_token_stream(), errors)
    }
}

fn with_errors(item: TokenStream, errors: Errors) -> TokenStream {
    let errors = errors.finish().err().map(|e| e.to_compile_error());
    quote!(#item #errors)
}

fn not_a_function(item: &TokenStream) -> syn::Error {
    let message = "`#[perfbench]` applies to functions: `fn name() { ... }`";
    match syn::parse2::<syn::Item>(item.clone()) {
        // Point at the item's keyword rather than the whole item.
        Ok(item) => {
            let span = match &item {
                syn::Item::Struct(s) => s.struct_token.span,
                syn::Item::Enum(e) => e.enum_token.span,
                syn::Item::Static(s) => s.static_token.span,
                syn::Item::Const(c) => c.const_token.span,
                syn::Item::Mod(m) => m.mod_token.span,
                syn::Item::Impl(i) => i.impl_token.span,
                syn::Item::Trait(t) => t.trait_token.span,
                syn::Item::Type(t) => t.type_token.span,
                syn::Item::Union(u) => u.union_token.span,
                syn::Item::Use(u) => u.use_token.span,
                other => other.span(),
            };
            syn::Error::new(span, message)
        }
        Err(_) => syn::Error::new(Span::call_site(), message),
    }
}

fn register(func: &ItemFn, options: &Options, shape: &Shape) -> TokenStream {
    let krate = options.krate();
    let ident = &func.sig.ident;
    // `#[cfg]` on the function applies to its registration too.
    let cfgs = func
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("cfg") || a.path().is_ident("cfg_attr"));

    let name = match &options.name {
        Some(name) => name.clone(),
        None => LitStr::new(&ident.unraw().to_string(), ident.span()),
    };
    let group = match &options.group {
        Some(group) => quote!(::core::option::Option::Some(#group)),
        None => quote!(::core::option::Option::None),
    };
    // `threads = [...]`: one benchmark per thread count, named by it, as `args` would be.
    let thread_args: Vec<Expr> = options
        .threads
        .iter()
        .flatten()
        .map(|&n| {
            let n = proc_macro2::Literal::usize_unsuffixed(n);
            syn::parse_quote!(#n)
        })
        .collect();
    let args: &[Expr] = match &options.threads {
        Some(_) => &thread_args,
        None => options.args.as_deref().unwrap_or_default(),
    };
    let arg_names = args.iter().map(arg_name);
    let arg_list = match &options.args_expr {
        Some(expr) => {
            // Each value's id is its `Display`, checked with a message at the expression.
            let names = quote_spanned! {expr.span()=>
                #[diagnostic::on_unimplemented(
                    message = "the values of `args = EXPR` name the benchmarks through `Display`, which `{Self}` does not implement",
                    label = "`args` values must implement `Display`"
                )]
                trait ArgName {
                    fn arg_name(&self) -> ::std::string::String;
                }
                impl<T: ::core::fmt::Display> ArgName for T {
                    fn arg_name(&self) -> ::std::string::String {
                        ::std::string::ToString::to_string(self)
                    }
                }
                fn __perfbench_args() -> ::std::vec::Vec<::std::string::String> {
                    ::core::iter::Iterator::collect(::core::iter::Iterator::map(
                        ::core::iter::IntoIterator::into_iter(#expr),
                        |v| ArgName::arg_name(&v),
                    ))
                }
            };
            (
                names,
                quote!(::core::option::Option::Some(__perfbench_args)),
            )
        }
        None => (quote!(), quote!(::core::option::Option::None)),
    };
    let (arg_list_fn, arg_list) = arg_list;
    // Spanned at the function's name: `line!()` reports the line of its invocation.
    let line = quote_spanned!(ident.span()=> ::core::line!());
    let file = quote_spanned!(ident.span()=> ::core::file!());

    let per_arg = arg_throughput(func, shape, options);
    // One runner per type with `types` (calling `f::<T>`), else one (calling `f`).
    let callees: Vec<(Ident, TokenStream)> = match &options.types {
        Some(types) => types
            .iter()
            .enumerate()
            .map(|(i, (ty, _))| {
                (
                    format_ident!("__perfbench_run_{}", i),
                    quote!(#ident::<#ty>),
                )
            })
            .collect(),
        None => vec![(format_ident!("__perfbench_run"), quote!(#ident))],
    };
    let run_bodies: Vec<TokenStream> = callees
        .iter()
        .map(|(run, callee)| {
            let call = Callee {
                run,
                callee,
                executor: options.executor.as_ref(),
                threaded: options.threads.is_some(),
            };
            match &options.args_expr {
                Some(expr) => run_body_expr(call, shape, expr, &name, &krate, per_arg.as_ref()),
                None => run_body(call, shape, args, &name, &krate, per_arg.as_ref()),
            }
        })
        .collect();
    let first_run = &callees[0].0;
    let types = match &options.types {
        Some(types) => {
            let entries = types.iter().zip(&callees).map(|((ty, text), (run, _))| {
                let text = LitStr::new(text, ty.span());
                quote!(#krate::__private::EntryType { name: #text, run: #run })
            });
            quote!(&[#(#entries),*])
        }
        None => quote!(&[]),
    };
    let entry_options = entry_options(options, &krate, per_arg.is_some());

    quote! {
        #func

        #(#cfgs)*
        const _: () = {
            #(#run_bodies)*
            #arg_list_fn

            #[#krate::__private::linkme::distributed_slice(#krate::__private::BENCHMARKS)]
            #[linkme(crate = #krate::__private::linkme)]
            // `..Options::DEFAULT` stays when every option is given: the macro can't know
            // whether `Options` has grown a field since.
            #[allow(clippy::needless_update)]
            static __PERFBENCH_ENTRY: #krate::__private::Entry = #krate::__private::Entry {
                name: #name,
                group: #group,
                module_path: ::core::module_path!(),
                file: #file,
                line: #line,
                args: &[#(#arg_names),*],
                arg_names: #arg_list,
                types: #types,
                options: #entry_options,
                run: #first_run,
            };
        };
    }
}

/// An argument as the benchmark id shows it: a string literal's contents, else the expression
/// as written.
fn arg_name(arg: &Expr) -> TokenStream {
    match arg {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => s.to_token_stream(),
        other => LitStr::new(&arg_text(other.to_token_stream()), other.span()).to_token_stream(),
    }
}

/// `throughput = bytes(EXPR)` whose EXPR names the function's argument (`bytes(len)`): the
/// count is computed for each argument when it runs, with the parameter bound to a reference to
/// the value, and set with `Bencher::throughput`.
struct ArgThroughput {
    param: Ident,
    kind: Ident,
    count: Expr,
}

/// The [`ArgThroughput`] of `func`, when its throughput count mentions its argument.
fn arg_throughput(func: &ItemFn, shape: &Shape, options: &Options) -> Option<ArgThroughput> {
    if !matches!(shape, Shape::Arg(_) | Shape::BencherArg) {
        return None;
    }
    let (kind, count) = options.throughput.as_ref()?;
    let syn::FnArg::Typed(arg) = func.sig.inputs.last()? else {
        return None;
    };
    let syn::Pat::Ident(pat) = &*arg.pat else {
        return None;
    };
    fn mentions(tokens: TokenStream, ident: &Ident) -> bool {
        tokens.into_iter().any(|t| match t {
            proc_macro2::TokenTree::Ident(i) => i == *ident,
            proc_macro2::TokenTree::Group(g) => mentions(g.stream(), ident),
            _ => false,
        })
    }
    mentions(count.to_token_stream(), &pat.ident).then(|| ArgThroughput {
        param: pat.ident.clone(),
        kind: kind.clone(),
        count: count.clone(),
    })
}

/// Sets the throughput of argument `value` on `bencher`, for an [`ArgThroughput`].
fn set_throughput(
    per_arg: Option<&ArgThroughput>,
    value: &Ident,
    bencher: &Ident,
    krate: &TokenStream,
) -> TokenStream {
    let Some(ArgThroughput { param, kind, count }) = per_arg else {
        return quote!();
    };
    let count = quote_spanned!(count.span()=> #krate::__private::throughput_count(#count));
    quote! {
        {
            #[allow(unused_variables)]
            let #param = &#value;
            #bencher.throughput(#krate::__private::Throughput::#kind(#count));
        }
    }
}

/// The items behind `__perfbench_requires_copy(&value)`: an argument passed by value to each
/// iteration must be `Copy`, said with our message where the call is spanned.
fn copy_check() -> TokenStream {
    quote! {
        #[diagnostic::on_unimplemented(
            message = "a benchmark argument without a `&mut Bencher` must be `Copy`; `{Self}` is not"
        )]
        trait CopyArg {}
        impl<T: ::core::marker::Copy> CopyArg for T {}
        fn __perfbench_requires_copy<T: CopyArg>(_: &T) {}
    }
}

/// A runner to generate: its name, and how it calls the benchmark function (`f`, or `f::<T>`
/// for one of `types`).
#[derive(Clone, Copy)]
struct Callee<'a> {
    run: &'a Ident,
    callee: &'a TokenStream,
    /// `executor = EXPR` of an `async fn`: its futures are awaited through
    /// `bencher.to_async(EXPR)`.
    executor: Option<&'a Expr>,
    /// `threads = [...]`: the args are thread counts, each measured with `iter_threads`.
    threaded: bool,
}

impl Callee<'_> {
    /// What the measuring call goes through: the bencher, or its `to_async(executor)`.
    fn driver(&self, bencher: &Ident) -> TokenStream {
        match self.executor {
            Some(executor) => quote!(#bencher.to_async(#executor)),
            None => quote!(#bencher),
        }
    }
}

/// `fn __perfbench_run(bencher: &mut Bencher, arg: usize)`: calls the function for argument
/// number `arg`.
fn run_body(
    call: Callee<'_>,
    shape: &Shape,
    args: &[Expr],
    name: &LitStr,
    krate: &TokenStream,
    per_arg: Option<&ArgThroughput>,
) -> TokenStream {
    // Mixed-site hygiene: the generated locals can't clash with names in the user's `args`.
    let bencher = Ident::new("bencher", Span::mixed_site());
    let index = Ident::new("arg", Span::mixed_site());
    let (run, ident, driver) = (call.run, call.callee, call.driver(&bencher));
    let indices = 0..args.len();
    let count = args.len();
    let out_of_range = quote! {
        _ => ::core::panic!(
            "perfbench: `{}` has {} args; there is no arg #{}", #name, #count, #index
        ),
    };
    let body = match shape {
        Shape::Plain if call.threaded => quote! {
            match #index {
                #(#indices => #bencher.iter_threads(#args, || #ident()),)*
                #out_of_range
            }
        },
        Shape::Plain => quote! {
            let _ = #index;
            #driver.iter(|| #ident())
        },
        Shape::Bencher => quote! {
            let _ = #index;
            #ident(#bencher)
        },
        Shape::BencherArg if per_arg.is_some() => {
            let value = Ident::new("__perfbench_value", Span::mixed_site());
            let set = set_throughput(per_arg, &value, &bencher, krate);
            quote! {
                match #index {
                    #(#indices => {
                        let #value = #args;
                        #set
                        #ident(#bencher, #value)
                    })*
                    #out_of_range
                }
            }
        }
        Shape::BencherArg => quote! {
            match #index {
                #(#indices => #ident(#bencher, #args),)*
                #out_of_range
            }
        },
        Shape::Arg(ty) => {
            // Each iteration gets its own copy of the value, through `black_box` so that the
            // function can't be specialised for the constant. The `Copy` check is spanned at
            // the parameter's type, where a non-`Copy` type is then reported. (The binding
            // needn't be hygienic: only the value's own expression precedes it.)
            let value = Ident::new("__perfbench_value", ty.span());
            let assert_copy = quote_spanned!(ty.span()=> __perfbench_requires_copy(&#value););
            let set = set_throughput(per_arg, &value, &bencher, krate);
            let copy_check = copy_check();
            quote! {
                #copy_check
                match #index {
                    #(#indices => {
                        let #value = #args;
                        #assert_copy
                        #set
                        #driver.iter(move || #ident(#krate::black_box(#value)))
                    })*
                    #out_of_range
                }
            }
        }
    };
    quote! {
        fn #run(#bencher: &mut #krate::Bencher, #index: ::core::primitive::usize) {
            #body
        }
    }
}

/// `fn __perfbench_run(bencher: &mut Bencher, arg: usize)` for `args = EXPR`: takes value
/// number `arg` of the expression (evaluated anew, outside the measurement) and calls the
/// function with it.
fn run_body_expr(
    call: Callee<'_>,
    shape: &Shape,
    expr: &Expr,
    name: &LitStr,
    krate: &TokenStream,
    per_arg: Option<&ArgThroughput>,
) -> TokenStream {
    let bencher = Ident::new("bencher", Span::mixed_site());
    let index = Ident::new("arg", Span::mixed_site());
    let value = Ident::new("__perfbench_value", Span::mixed_site());
    let (run, ident, driver) = (call.run, call.callee, call.driver(&bencher));
    let take = quote! {
        let #value = match ::core::iter::Iterator::nth(
            &mut ::core::iter::IntoIterator::into_iter(#expr),
            #index,
        ) {
            ::core::option::Option::Some(v) => v,
            ::core::option::Option::None => ::core::panic!(
                "perfbench: `args` of `{}` has no value #{}", #name, #index
            ),
        };
    };
    let call = match shape {
        Shape::Arg(ty) => {
            let assert_copy = quote_spanned!(ty.span()=> __perfbench_requires_copy(&#value););
            let copy_check = copy_check();
            quote! {
                #copy_check
                #assert_copy
                #driver.iter(move || #ident(#krate::black_box(#value)))
            }
        }
        // `classify` reported `args` without a parameter; nothing more to say here.
        Shape::Plain | Shape::Bencher | Shape::BencherArg => quote!(#ident(#bencher, #value)),
    };
    let set = set_throughput(per_arg, &value, &bencher, krate);
    quote! {
        fn #run(#bencher: &mut #krate::Bencher, #index: ::core::primitive::usize) {
            #take
            #set
            #call
        }
    }
}

/// The `Options { .. }` value, with only the given fields spelled out.
/// `per_arg`: the throughput is set per argument at run time instead ([`ArgThroughput`]).
fn entry_options(options: &Options, krate: &TokenStream, per_arg: bool) -> TokenStream {
    let some = |v: &dyn ToTokens| quote!(::core::option::Option::Some(#v));
    let mut fields = Vec::new();
    if let Some(counters) = &options.counters {
        fields.push(quote!(counters: ::core::option::Option::Some(&[#(#counters),*])));
    }
    if let Some(n) = &options.sample_size {
        let v = some(n);
        fields.push(quote!(sample_size: #v));
    }
    if let Some(s) = &options.warm_up_time {
        let v = some(s);
        fields.push(quote!(warm_up_time: #v));
    }
    if let Some(s) = &options.measurement_time {
        let v = some(s);
        fields.push(quote!(measurement_time: #v));
    }
    if let Some((kind, n)) = options.throughput.as_ref().filter(|_| !per_arg) {
        let v = some(&quote!(#krate::__private::Throughput::#kind(#n)));
        fields.push(quote!(throughput: #v));
    }
    if let Some(thresholds) = &options.thresholds {
        let pairs = thresholds.iter().map(|(name, t)| quote!((#name, #t)));
        fields.push(quote!(thresholds: ::core::option::Option::Some(&[#(#pairs),*])));
    }
    if options.ignore {
        fields.push(quote!(ignore: true));
    }
    if fields.is_empty() {
        quote!(#krate::__private::Options::DEFAULT)
    } else {
        quote! {
            #krate::__private::Options {
                #(#fields,)*
                ..#krate::__private::Options::DEFAULT
            }
        }
    }
}
