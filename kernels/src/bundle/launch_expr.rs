//! The validator's own evaluator for launch geometry (DESIGN 6): integers, `+ - * /`,
//! parentheses, `ceil_div(a, b)`, `min(a, b)`, `max(a, b)` and the slot's shape symbols;
//! nothing else. Arithmetic is checked i64; `/` truncates.

use std::collections::BTreeMap;

/// Longest expression accepted, in bytes.
pub const MAX_EXPR_LEN: usize = 256;
const MAX_DEPTH: usize = 32;

/// A parsed launch expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    Int(i64),
    Symbol(String),
    Neg(Box<Expr>),
    Bin(Op, Box<Expr>, Box<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
    CeilDiv,
    Min,
    Max,
}

/// Why an expression was refused or could not be evaluated.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ExprError {
    #[error("expression is longer than {MAX_EXPR_LEN} bytes")]
    TooLong,
    #[error("expression nests deeper than {MAX_DEPTH}")]
    TooDeep,
    #[error("unexpected `{found}` at byte {at}")]
    Unexpected { found: String, at: usize },
    #[error("unknown name `{0}` (allowed: integers, + - * /, ceil_div, min, max, shape symbols)")]
    UnknownName(String),
    #[error("integer overflow")]
    Overflow,
    #[error("division by zero")]
    DivByZero,
}

impl Expr {
    /// Parses `text`, accepting only the given shape symbols as names.
    pub fn parse(text: &str, symbols: &[&str]) -> Result<Expr, ExprError> {
        if text.len() > MAX_EXPR_LEN {
            return Err(ExprError::TooLong);
        }
        let mut p = Parser {
            s: text.as_bytes(),
            at: 0,
            symbols,
            depth: 0,
        };
        let e = p.sum()?;
        p.skip_ws();
        if p.at < p.s.len() {
            return Err(p.unexpected());
        }
        Ok(e)
    }

    /// Evaluates with shape values; every symbol must be bound.
    pub fn eval(&self, values: &BTreeMap<&str, i64>) -> Result<i64, ExprError> {
        match self {
            Expr::Int(v) => Ok(*v),
            Expr::Symbol(s) => values
                .get(s.as_str())
                .copied()
                .ok_or_else(|| ExprError::UnknownName(s.clone())),
            Expr::Neg(e) => e.eval(values)?.checked_neg().ok_or(ExprError::Overflow),
            Expr::Bin(op, a, b) => {
                let (a, b) = (a.eval(values)?, b.eval(values)?);
                let r = match op {
                    Op::Add => a.checked_add(b),
                    Op::Sub => a.checked_sub(b),
                    Op::Mul => a.checked_mul(b),
                    Op::Div | Op::CeilDiv if b == 0 => return Err(ExprError::DivByZero),
                    Op::Div => a.checked_div(b),
                    Op::CeilDiv => a.checked_add(b - 1).and_then(|n| n.checked_div(b)),
                    Op::Min => Some(a.min(b)),
                    Op::Max => Some(a.max(b)),
                };
                r.ok_or(ExprError::Overflow)
            }
        }
    }
}

struct Parser<'a> {
    s: &'a [u8],
    at: usize,
    symbols: &'a [&'a str],
    depth: usize,
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while self.at < self.s.len() && self.s[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.s.get(self.at).copied()
    }

    fn unexpected(&self) -> ExprError {
        let found = match self.s.get(self.at) {
            Some(&c) => (c as char).to_string(),
            None => "end of expression".to_string(),
        };
        ExprError::Unexpected { found, at: self.at }
    }

    fn expect(&mut self, c: u8) -> Result<(), ExprError> {
        if self.peek() == Some(c) {
            self.at += 1;
            Ok(())
        } else {
            Err(self.unexpected())
        }
    }

    fn sum(&mut self) -> Result<Expr, ExprError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ExprError::TooDeep);
        }
        let mut e = self.product()?;
        while let Some(c @ (b'+' | b'-')) = self.peek() {
            self.at += 1;
            let op = if c == b'+' { Op::Add } else { Op::Sub };
            e = Expr::Bin(op, Box::new(e), Box::new(self.product()?));
        }
        self.depth -= 1;
        Ok(e)
    }

    fn product(&mut self) -> Result<Expr, ExprError> {
        let mut e = self.unary()?;
        while let Some(c @ (b'*' | b'/')) = self.peek() {
            self.at += 1;
            let op = if c == b'*' { Op::Mul } else { Op::Div };
            e = Expr::Bin(op, Box::new(e), Box::new(self.unary()?));
        }
        Ok(e)
    }

    fn unary(&mut self) -> Result<Expr, ExprError> {
        match self.peek() {
            Some(b'-') => {
                self.at += 1;
                self.depth += 1;
                if self.depth > MAX_DEPTH {
                    return Err(ExprError::TooDeep);
                }
                let e = Expr::Neg(Box::new(self.unary()?));
                self.depth -= 1;
                Ok(e)
            }
            Some(b'(') => {
                self.at += 1;
                let e = self.sum()?;
                self.expect(b')')?;
                Ok(e)
            }
            Some(c) if c.is_ascii_digit() => {
                let start = self.at;
                while self.at < self.s.len() && self.s[self.at].is_ascii_digit() {
                    self.at += 1;
                }
                let text = std::str::from_utf8(&self.s[start..self.at]).expect("ascii digits");
                text.parse().map(Expr::Int).map_err(|_| ExprError::Overflow)
            }
            Some(c) if c.is_ascii_alphabetic() || c == b'_' => self.name(),
            _ => Err(self.unexpected()),
        }
    }

    fn name(&mut self) -> Result<Expr, ExprError> {
        let start = self.at;
        while self.at < self.s.len()
            && (self.s[self.at].is_ascii_alphanumeric() || self.s[self.at] == b'_')
        {
            self.at += 1;
        }
        let name = std::str::from_utf8(&self.s[start..self.at])
            .expect("ascii name")
            .to_string();
        let func = match name.as_str() {
            "ceil_div" => Some(Op::CeilDiv),
            "min" => Some(Op::Min),
            "max" => Some(Op::Max),
            _ => None,
        };
        if let Some(op) = func {
            self.expect(b'(')?;
            let a = self.sum()?;
            self.expect(b',')?;
            let b = self.sum()?;
            self.expect(b')')?;
            return Ok(Expr::Bin(op, Box::new(a), Box::new(b)));
        }
        if self.symbols.contains(&name.as_str()) {
            Ok(Expr::Symbol(name))
        } else {
            Err(ExprError::UnknownName(name))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(text: &str) -> Result<i64, ExprError> {
        let values = BTreeMap::from([("tokens", 7), ("d", 4096)]);
        Expr::parse(text, &["tokens", "d"])?.eval(&values)
    }

    #[test]
    fn evaluates() {
        assert_eq!(eval("tokens"), Ok(7));
        assert_eq!(eval("ceil_div(d, 2048)"), Ok(2));
        assert_eq!(eval("ceil_div(d + 1, 2048)"), Ok(3));
        assert_eq!(eval("min(tokens, 4) * 2 - -1"), Ok(9));
        assert_eq!(eval("max(1, (d / 3) * 2)"), Ok(2730));
        assert_eq!(eval(" 1 + 2 * 3 "), Ok(7));
    }

    #[test]
    fn refuses() {
        assert_eq!(eval("hidden"), Err(ExprError::UnknownName("hidden".into())));
        assert_eq!(
            eval("pow(d, 2)").unwrap_err(),
            ExprError::UnknownName("pow".into())
        );
        assert_eq!(eval("d / 0"), Err(ExprError::DivByZero));
        assert_eq!(eval("9223372036854775807 + 1"), Err(ExprError::Overflow));
        assert!(matches!(eval("d +"), Err(ExprError::Unexpected { .. })));
        assert!(matches!(eval("d ; 1"), Err(ExprError::Unexpected { .. })));
        assert_eq!(eval(&"(".repeat(40)), Err(ExprError::TooDeep));
        assert_eq!(eval(&"1+".repeat(200)), Err(ExprError::TooLong));
    }
}
