//! How an `args` value appears in benchmark ids (`sum/1024`, `len/usize::MAX`).
//!
//! `stringify!` of tokens that went through a proc macro spaces every token apart
//! (`usize :: MAX`), and spans can't be joined on stable Rust to read the source text back,
//! so the expression is printed here with rustfmt-like spacing: none around `::` and `.`, after
//! a unary operator or an opening delimiter, before `,`, `?` or a call's parentheses; a space
//! around binary operators and between words.

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};

/// `tokens` as a person would write them.
pub(crate) fn arg_text(tokens: TokenStream) -> String {
    let mut out = Printer::default();
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
}

impl Default for Printer {
    fn default() -> Self {
        Printer {
            text: String::new(),
            last: Last::Open,
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
                            Some(TokenTree::Punct(next)) => {
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

    fn word(&mut self, word: &str) {
        if matches!(self.last, Last::Word | Last::Close | Last::Spaced) {
            self.text.push(' ');
        }
        self.text.push_str(word);
        self.last = Last::Word;
    }

    fn op(&mut self, op: &str) {
        let after_operand = matches!(self.last, Last::Word | Last::Close);
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
    use super::arg_text;
    use quote::quote;

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
            (quote!(parse(s)?), "parse(s)?"),
            (quote!(-(1 + 2)), "-(1 + 2)"),
        ];
        for (tokens, text) in cases {
            assert_eq!(arg_text(tokens), text);
        }
    }
}
