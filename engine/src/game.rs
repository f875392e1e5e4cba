//! A game in progress: the position, the moves so far and the threefold rule.
//!
//! Invariant: `positions` holds every position of the game, the start first, and is
//! never empty; `moves[i]` led from `positions[i]` to `positions[i + 1]`; `seen` counts
//! the repetition keys of `positions`.

use crate::moves::Move;
use crate::position::{GameEnd, IllegalMove, Position};
use std::collections::HashMap;

/// A game: a start position, the moves played and the repetitions seen.
#[derive(Clone, Debug)]
pub struct Game {
    positions: Vec<Position>,
    moves: Vec<Move>,
    seen: HashMap<u64, u32>,
}

impl Game {
    /// A game from a position.
    pub fn new(start: Position) -> Game {
        let key = start.repetition_key();
        Game {
            positions: vec![start],
            moves: Vec::new(),
            seen: HashMap::from([(key, 1)]),
        }
    }

    /// The position the game started from.
    pub fn start(&self) -> &Position {
        &self.positions[0]
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.positions[self.positions.len() - 1]
    }

    /// Every position of the game, the start first and the current one last.
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// The full-state hashes ([`Position::hash`]) of the game's positions before the
    /// current one: what a search needs to score a return to them as a repetition.
    pub fn history(&self) -> Vec<u64> {
        let before = &self.positions[..self.positions.len() - 1];
        before.iter().map(Position::hash).collect()
    }

    /// The moves played so far.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// How often the current position (points and side to move) has occurred.
    pub fn repetitions(&self) -> u32 {
        self.seen
            .get(&self.position().repetition_key())
            .copied()
            .unwrap_or(0)
    }

    /// How the game has ended, if it has: rules 1 and 2 first, then threefold.
    pub fn end(&self) -> Option<GameEnd> {
        self.position()
            .end()
            .or_else(|| (self.repetitions() >= 3).then_some(GameEnd::Threefold))
    }

    /// Play a move.
    ///
    /// # Errors
    /// [`IllegalMove::GameOver`] once the game has ended (threefold included), or the
    /// reason the move is illegal. The game is unchanged on error.
    pub fn play(&mut self, m: Move) -> Result<(), IllegalMove> {
        if self.end().is_some() {
            return Err(IllegalMove::GameOver);
        }
        let next = self.position().play(m)?;
        self.moves.push(m);
        self.positions.push(next);
        *self.seen.entry(next.repetition_key()).or_insert(0) += 1;
        Ok(())
    }

    /// Take back the last move, if any.
    pub fn undo(&mut self) -> Option<Move> {
        let m = self.moves.pop()?;
        let key = self.positions.pop()?.repetition_key();
        if let Some(n) = self.seen.get_mut(&key) {
            *n -= 1;
            if *n == 0 {
                self.seen.remove(&key);
            }
        }
        Some(m)
    }
}
