//! The text the exact-number pass (decimal.rs) writes for a parsed run:
//! `gen` turns a `Node` into MySQL text calling the engine's exact
//! functions (`ts_dadd`, `ts_uop`, ...), `print` into the expression as
//! MariaDB names it in a message, `text` into the client's text with the
//! pass's edits inside it. Split from decimal.rs, which parses the runs and
//! decides where they are rewritten.

use super::decimal::{LeafKind, Node, Pass, Piece, Ty, Want};

impl Pass<'_> {
    /// The MySQL text computing `node` exactly.
    pub(super) fn gen(&self, node: &Node) -> String {
        if self.failed() || !self.stack_left() {
            return String::new();
        }
        match node {
            Node::Leaf { s, e, kind, ty } => match kind {
                LeafKind::DecLiteral => format!("'{}'", &self.sql[self.toks[*s].start..self.toks[*e - 1].end]),
                LeafKind::Plain | LeafKind::IntAggregate | LeafKind::Unsigned(_) => self.text(*s, *e),
                LeafKind::Paren(inner) => match ty {
                    Ty::Dec(_) | Ty::UBig => self.gen(inner),
                    _ if needs_gen(inner) => format!("({})", self.gen(inner)),
                    _ => self.text(*s, *e),
                },
                LeafKind::Pieces { pieces, .. } => self.gen_pieces(pieces),
            },
            Node::Neg { x, ty, .. } => match (x.as_ref(), ty) {
                (Node::Leaf { s, e, kind: LeafKind::DecLiteral, .. }, _) => format!("'-{}'", &self.sql[self.toks[*s].start..self.toks[*e - 1].end]),
                (_, Ty::Dec(_)) => format!("ts_dsub(0, {})", self.gen(x)),
                _ => format!("-{}", self.gen(x)),
            },
            Node::Bin { op, l, r, ty, .. } => self.gen_binary(op, l, r, *ty, node),
        }
    }

    /// `l op r` of type `ty`.
    fn gen_binary(&self, op: &str, l: &Node, r: &Node, ty: Ty, node: &Node) -> String {
        let exact = l.ty().exact() && r.ty().exact();
        let unsigned = l.ty() == Ty::UBig || r.ty() == Ty::UBig;
        match (op, ty) {
            ("DIV", Ty::Double | Ty::Int(_)) if !exact => format!("CAST(({}) * 1.0 / ({}) AS INTEGER)", self.gen(l), self.gen(r)),
            ("DIV", _) if exact && (unsigned || matches!(l.ty(), Ty::Dec(_)) || matches!(r.ty(), Ty::Dec(_))) => format!("ts_ddivi({}, {}, {})", self.gen(l), self.gen(r), unsigned as u8),
            ("%", Ty::Double) => format!("ts_fmod({}, {})", self.gen(l), self.gen(r)),
            ("%", Ty::UBig | Ty::Int(_)) if unsigned => format!("ts_dmod({}, {})", self.gen(l), self.gen(r)),
            ("+" | "-" | "*", Ty::UBig) => format!("ts_uop({}, {}, '{}', {})", self.gen(l), self.gen(r), op, super::str_literal(self.print(node).as_bytes())),
            (_, Ty::Dec(_)) => {
                let f = match op {
                    "+" => "ts_dadd",
                    "-" => "ts_dsub",
                    "*" => "ts_dmul",
                    "%" => "ts_dmod",
                    _ => "ts_ddiv",
                };
                format!("{}({}, {})", f, self.gen(l), self.gen(r))
            }
            _ => format!("({} {} {})", self.gen(l), op, self.gen(r)),
        }
    }

    /// The text of `pieces`.
    fn gen_pieces(&self, pieces: &[Piece]) -> String {
        let mut out = String::new();
        for p in pieces {
            match p {
                Piece::Text(s, e) if s < e => {
                    if !out.is_empty() && !out.ends_with(['(', ' ']) {
                        out.push(' ');
                    }
                    out.push_str(&self.text(*s, *e));
                }
                Piece::Text(..) => {}
                Piece::Raw(r) => out.push_str(r),
                Piece::Run(n, want) => {
                    if out.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
                        out.push(' ');
                    }
                    match (n.ty(), want) {
                        (Ty::Dec(_) | Ty::UBig, Want::Double) => out.push_str(&format!("CAST({} AS DOUBLE)", self.gen(n))),
                        _ => out.push_str(&self.gen(n)),
                    }
                }
            }
        }
        out
    }

    /// `node` as MariaDB prints an expression in a message: columns as
    /// `db`.`t`.`c`, operators spaced, inner operations in parentheses; cut
    /// at 200 bytes (a message is cut at 511).
    fn print(&self, node: &Node) -> String {
        if turnstile_engine::stack::check().is_err() {
            return String::new();
        }
        let mut s = match node {
            Node::Leaf { kind: LeafKind::Unsigned(q), .. } => q.clone(),
            Node::Leaf { kind: LeafKind::Paren(inner), .. } => self.print(inner),
            Node::Leaf { s, e, .. } => self.sql[self.toks[*s].start..self.toks[*e - 1].end].to_string(),
            Node::Neg { x, .. } => format!("-{}", self.print_operand(x)),
            Node::Bin { op, l, r, .. } => format!("{} {} {}", self.print_operand(l), op, self.print_operand(r)),
        };
        if s.len() > 200 {
            let mut cut = 200;
            while !s.is_char_boundary(cut) {
                cut -= 1;
            }
            s.truncate(cut);
        }
        s
    }

    fn print_operand(&self, node: &Node) -> String {
        match node {
            Node::Bin { .. } => format!("({})", self.print(node)),
            Node::Leaf { kind: LeafKind::Paren(inner), .. } if matches!(**inner, Node::Bin { .. }) => format!("({})", self.print(inner)),
            _ => self.print(node),
        }
    }

    /// The text of tokens [s, e), with the edits made inside it so far.
    pub(super) fn text(&self, s: usize, e: usize) -> String {
        if s >= e {
            return String::new();
        }
        let mut out = String::new();
        let mut at = self.toks[s].start;
        for (a, b, rep) in self.edits.iter().filter(|(a, b, _)| *a >= s && *b <= e) {
            out.push_str(&self.sql[at..self.toks[*a].start]);
            out.push_str(rep);
            at = self.toks[*b - 1].end;
        }
        out.push_str(&self.sql[at..self.toks[e - 1].end]);
        out
    }
}

/// Does `node` compute something SQLite would not compute alike (so its
/// generated text differs from the client's)?
pub(super) fn needs_gen(node: &Node) -> bool {
    match node {
        Node::Leaf { kind: LeafKind::Pieces { .. } | LeafKind::DecLiteral, .. } => true,
        Node::Leaf { kind: LeafKind::Paren(inner), .. } => needs_gen(inner),
        Node::Leaf { .. } => false,
        Node::Neg { x, ty, .. } => matches!(ty, Ty::Dec(_)) || needs_gen(x),
        Node::Bin { ty: Ty::Dec(_) | Ty::UBig, .. } | Node::Bin { op: "%", ty: Ty::Double, .. } => true,
        Node::Bin { op, l, r, .. } => *op == "DIV" && !(matches!(l.ty(), Ty::Int(_)) && matches!(r.ty(), Ty::Int(_))) || needs_gen(l) || needs_gen(r),
    }
}
