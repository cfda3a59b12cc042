//! How an `args` value appears in benchmark ids (`sum/1024`, `len/usize::MAX`), and a `types`
//! entry (`sort/Vec<u8>`).
//!
//! `stringify!` of tokens that went through a proc macro spaces every token apart
//! (`usize :: MAX`), and spans can't be joined on stable Rust to read the source text back,
//! so the expression is printed here with rustfmt-like spacing: none around `::` and `.`, after
//! a unary operator or an opening delimiter, before `,`, `?` or a call's parentheses; a space
//! around binary operators and between words. A type is printed the same way, except that its
//! angle brackets hug what they enclose, as rustc prints types (`Vec<Option<u8>>`,
//! `HashMap<String, u64>`, `&'static str`).

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};

/// `tokens` as a person would write them.
pub(crate) fn arg_text(tokens: TokenStream) -> String {
    let mut out = Printer::default();
    out.stream(tokens);
    out.text
}

/// The tokens of a type as rustc prints it.
pub(crate) fn type_text(tokens: TokenStream) -> String {
    let mut out = Printer {
        angles: true,
        ..Printer::default()
    };
    out.stream(tokens);
    out.text
}

#[derive(Clone, Copy, PartialEq)]
enum Last {
    /// Start of the text or of a delimited group.
    Open,
    /// An identifier or a literal.
    Word,
    /// A closing delimiter.
    Close,
    /// An operator that binds tightly on both sides (`::`, `.`, `..`), or a unary operator.
    Glue,
    /// A binary operator or a separator, followed by a space.
    Spaced,
    /// `!` after a word (`vec!`): the macro's delimiter follows directly.
    MacroBang,
}

struct Printer {
    text: String,
    last: Last,
    /// In a type: `<` and `>` are brackets, not operators.
    angles: bool,
}

impl Default for Printer {
    fn default() -> Self {
        Printer {
            text: String::new(),
            last: Last::Open,
            angles: false,
        }
    }
}

impl Printer {
    fn stream(&mut self, tokens: TokenStream) {
        let mut tokens = tokens.into_iter().peekable();
        while let Some(token) = tokens.next() {
            match token {
                TokenTree::Ident(i) => self.word(&i.to_string()),
                TokenTree::Literal(l) => self.word(&l.to_string()),
                TokenTree::Punct(p) => {
                    // Glue joint punctuation into one operator (`::`, `..=`, `<<`).
                    let mut op = String::from(p.as_char());
                    let mut spacing = p.spacing();
                    while spacing == Spacing::Joint {
                        match tokens.peek() {
                            // A lifetime's `'` starts a word of its own (`&'static`).
                            Some(TokenTree::Punct(next))
                                if next.as_char() != '\'' && self.glues(&op, next.as_char()) =>
                            {
                                op.push(next.as_char());
                                spacing = next.spacing();
                                tokens.next();
                            }
                            _ => break,
                        }
                    }
                    self.op(&op);
                }
                TokenTree::Group(g) => self.group(g.delimiter(), g.stream()),
            }
        }
    }

    /// Whether `next`, joint to `op`, belongs to the same operator. In a type, an angle
    /// bracket stands alone (`<&`, `>,` are two tokens) but for `>>` and `->`.
    fn glues(&self, op: &str, next: char) -> bool {
        if !self.angles {
            return true;
        }
        let last = op.chars().last().unwrap_or(' ');
        match (last, next) {
            ('<', n) => n == '<',
            (_, '<') => false,
            (l, '>') => l == '>' || (l == '-' && op == "-"),
            ('>', _) => false,
            _ => true,
        }
    }

    fn word(&mut self, word: &str) {
        if matches!(self.last, Last::Word | Last::Close | Last::Spaced) {
            self.text.push(' ');
        }
        self.text.push_str(word);
        self.last = Last::Word;
    }

    fn op(&mut self, op: &str) {
        let after_operand = matches!(self.last, Last::Word | Last::Close);
        // In a type, `<` opens generic arguments and `>` (`>>` for two) closes them.
        if self.angles && !op.is_empty() && op.chars().all(|c| c == '<') {
            if self.last == Last::Spaced {
                self.text.push(' ');
            }
            self.text.push_str(op);
            self.last = Last::Open;
            return;
        }
        if self.angles && !op.is_empty() && op.chars().all(|c| c == '>') {
            self.text.push_str(op);
            self.last = Last::Close;
            return;
        }
        match op {
            "::" | "." | ".." | "..=" | "'" => {
                self.text.push_str(op);
                self.last = Last::Glue;
            }
            "," | ";" | ":" => {
                self.text.push_str(op);
                self.last = Last::Spaced;
            }
            "?" => {
                self.text.push_str(op);
                self.last = Last::Close;
            }
            "!" if self.last == Last::Word => {
                self.text.push_str(op);
                self.last = Last::MacroBang;
            }
            // A prefix operator: nothing before it is an operand.
            "-" | "!" | "&" | "&&" | "*" if !after_operand => {
                if self.last == Last::Spaced {
                    self.text.push(' ');
                }
                self.text.push_str(op);
                self.last = Last::Glue;
            }
            _ => {
                if self.last != Last::Open {
                    self.text.push(' ');
                }
                self.text.push_str(op);
                self.last = Last::Spaced;
            }
        }
    }

    /// Whether the text ends with a keyword that a type or a value follows.
    fn after_keyword(&self) -> bool {
        let start = self
            .text
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
            .map_or(0, |i| i + 1);
        matches!(&self.text[start..], "mut" | "const" | "dyn" | "impl")
    }

    fn group(&mut self, delimiter: Delimiter, inner: TokenStream) {
        let (open, close) = match delimiter {
            Delimiter::Parenthesis => ("(", ")"),
            Delimiter::Bracket => ("[", "]"),
            Delimiter::Brace => ("{", "}"),
            Delimiter::None => ("", ""),
        };
        if delimiter == Delimiter::None {
            return self.stream(inner);
        }
        // A call or an index follows its operand directly; a brace is set apart.
        let tight = match delimiter {
            Delimiter::Brace => matches!(self.last, Last::Open | Last::Glue | Last::MacroBang),
            // Not a call after a keyword: `&mut [u8]`, `*const (u8, u8)`.
            _ if self.last == Last::Word && self.after_keyword() => false,
            _ => !matches!(self.last, Last::Spaced),
        };
        if !tight {
            self.text.push(' ');
        }
        self.text.push_str(open);
        let braces = delimiter == Delimiter::Brace && !inner.is_empty();
        if braces {
            self.text.push(' ');
        }
        self.last = Last::Open;
        self.stream(inner);
        if braces {
            self.text.push(' ');
        }
        self.text.push_str(close);
        self.last = Last::Close;
    }
}

#[cfg(test)]
mod tests {
    use super::{arg_text, type_text};
    use quote::quote;

    #[test]
    fn types_as_rustc_prints_them() {
        let cases = [
            (quote!(u8), "u8"),
            (quote!(String), "String"),
            (quote!(Vec<u8>), "Vec<u8>"),
            (quote!(Vec<Vec<u8>>), "Vec<Vec<u8>>"),
            (quote!(Option<Vec<Box<u8>>>), "Option<Vec<Box<u8>>>"),
            (
                quote!(std::collections::HashMap<String, u64>),
                "std::collections::HashMap<String, u64>",
            ),
            (quote!(&'static str), "&'static str"),
            (quote!(Option<&'static str>), "Option<&'static str>"),
            (quote!(&mut [u8]), "&mut [u8]"),
            (quote!([u8; 16]), "[u8; 16]"),
            (quote!((u8, String)), "(u8, String)"),
            (quote!(()), "()"),
            (quote!(fn(u8) -> u64), "fn(u8) -> u64"),
            (
                quote!(Box<dyn Fn(u8) -> u8 + Send>),
                "Box<dyn Fn(u8) -> u8 + Send>",
            ),
            (quote!(*const u8), "*const u8"),
            (
                quote!(<Vec<u8> as IntoIterator>::Item),
                "<Vec<u8> as IntoIterator>::Item",
            ),
            (
                quote!(Box<dyn Iterator<Item = u8>>),
                "Box<dyn Iterator<Item = u8>>",
            ),
        ];
        for (tokens, text) in cases {
            assert_eq!(type_text(tokens), text);
            // As the compiler hands them over, with joint punctuation (`<&'static`, `>>`).
            let parsed: proc_macro2::TokenStream = text.parse().unwrap();
            assert_eq!(type_text(parsed), text);
        }
        let spaced: proc_macro2::TokenStream = "Vec < Vec<u8 > >".parse().unwrap();
        assert_eq!(type_text(spaced), "Vec<Vec<u8>>");
    }

    #[test]
    fn spaced_like_source() {
        let cases = [
            (quote!(1024), "1024"),
            (quote!(2 + 3), "2 + 3"),
            (quote!(-4), "-4"),
            (quote!(N * 2), "N * 2"),
            (quote!(usize::MAX), "usize::MAX"),
            (quote!(1 << 20), "1 << 20"),
            (
                quote!(String::from("a  b").len()),
                "String::from(\"a  b\").len()",
            ),
            (quote!(f(-1, !x, &y)), "f(-1, !x, &y)"),
            (quote!(vec![1, 2]), "vec![1, 2]"),
            (quote!([0u8; 16]), "[0u8; 16]"),
            (quote!((1, 2)), "(1, 2)"),
            (quote!(x as u64 - 1), "x as u64 - 1"),
            (quote!(a[3]), "a[3]"),
            (quote!(Point { x: 1, y: -2 }), "Point { x: 1, y: -2 }"),
            (quote!(0..10), "0..10"),
            (quote!(&mut v), "&mut v"),
            (quote!(&mut [1, 2]), "&mut [1, 2]"),
            (quote!(parse(s)?), "parse(s)?"),
            (quote!(-(1 + 2)), "-(1 + 2)"),
        ];
        for (tokens, text) in cases {
            assert_eq!(arg_text(tokens), text);
        }
    }
}
