//! The table's sounds: a discard, a call (碰 吃 杠 敲), your turn, a win, a timer's last five
//! seconds. Each is synthesised here from a few tones (no recordings: the sounds are the
//! project's own), played on the default output device through `cpal` on a thread of its own.
//!
//! A machine without a sound device (or whose device will not open) plays silently and says
//! so once in the log. The player turns sound off or picks a volume in the top bar; both are
//! remembered in the settings. What was asked to play is kept ([`Sound::played`]), so that
//! the app's tests see which cue each moment of the table gives without a device.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, mpsc};

use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};

/// A moment the table sounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cue {
    /// A tile goes to the pond.
    Discard,
    /// A claim, a kong or 敲 is called.
    Call,
    /// The player's turn (or claim window) begins.
    YourTurn,
    /// A hand is won.
    Win,
    /// One of the last five seconds of the player's countdown.
    LastSeconds,
}

/// The volumes the top bar's button steps through, in percent (0: off).
pub const VOLUMES: [u8; 4] = [0, 35, 70, 100];

/// One cue as mono samples at `rate` Hz, in [-1, 1].
pub fn synth(cue: Cue, rate: u32) -> Vec<f32> {
    // (frequency Hz, start s, length s, level): short tones with a fast attack and decay.
    let notes: &[(f32, f32, f32, f32)] = match cue {
        Cue::Discard => &[(180.0, 0.0, 0.06, 0.7), (90.0, 0.0, 0.08, 0.5)],
        Cue::Call => &[(660.0, 0.0, 0.09, 0.5), (880.0, 0.08, 0.12, 0.5)],
        Cue::YourTurn => &[(523.3, 0.0, 0.12, 0.35), (784.0, 0.1, 0.16, 0.35)],
        Cue::Win => &[
            (523.3, 0.0, 0.14, 0.4),
            (659.3, 0.12, 0.14, 0.4),
            (784.0, 0.24, 0.14, 0.4),
            (1046.5, 0.36, 0.3, 0.45),
        ],
        Cue::LastSeconds => &[(1200.0, 0.0, 0.04, 0.3)],
    };
    let end = notes
        .iter()
        .map(|&(_, at, len, _)| at + len)
        .fold(0.0f32, f32::max);
    let n = (end * rate as f32).ceil() as usize;
    let mut out = vec![0.0f32; n];
    for &(freq, at, len, level) in notes {
        let start = (at * rate as f32) as usize;
        let count = (len * rate as f32) as usize;
        for k in 0..count {
            let t = k as f32 / rate as f32;
            // 5 ms attack, then an exponential decay over the note.
            let attack = (t / 0.005).min(1.0);
            let decay = (-4.0 * t / len).exp();
            let s = (2.0 * std::f32::consts::PI * freq * t).sin() * level * attack * decay;
            if let Some(o) = out.get_mut(start + k) {
                *o += s;
            }
        }
    }
    for s in &mut out {
        *s = s.clamp(-1.0, 1.0);
    }
    out
}

/// The sound output: a thread that owns the device's stream, fed cues by a channel.
pub struct Sound {
    tx: Option<mpsc::Sender<(Cue, f32)>>,
    played: Vec<Cue>,
}

impl std::fmt::Debug for Sound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sound")
            .field("device", &self.tx.is_some())
            .field("played", &self.played.len())
            .finish()
    }
}

impl Sound {
    /// No output at all (tests, and until the window opens).
    pub fn silent() -> Sound {
        Sound {
            tx: None,
            played: Vec::new(),
        }
    }

    /// Opens the default output device on a thread of its own.
    pub fn start() -> Sound {
        let (tx, rx) = mpsc::channel::<(Cue, f32)>();
        let spawned = std::thread::Builder::new()
            .name("sound".into())
            .spawn(move || output(rx));
        if let Err(e) = spawned {
            tracing::warn!("no sound: the sound thread did not start: {e}");
            return Sound::silent();
        }
        Sound {
            tx: Some(tx),
            played: Vec::new(),
        }
    }

    /// Plays `cue` at `volume` percent (0: nothing).
    pub fn play(&mut self, cue: Cue, volume: u8) {
        if volume == 0 {
            return;
        }
        if self.played.len() >= 256 {
            self.played.drain(..128);
        }
        self.played.push(cue);
        if let Some(tx) = &self.tx {
            let _ = tx.send((cue, f32::from(volume.min(100)) / 100.0));
        }
    }

    /// The cues asked for so far (the last 256 at most).
    pub fn played(&self) -> &[Cue] {
        &self.played
    }
}

/// The sound thread: opens the device, then mixes each cue into the stream's queue. Without a
/// device it says so once and drops the cues.
fn output(rx: mpsc::Receiver<(Cue, f32)>) {
    let queue: Arc<Mutex<VecDeque<f32>>> = Arc::new(Mutex::new(VecDeque::new()));
    let (stream, rate) = match open(queue.clone()) {
        Ok(s) => s,
        Err(why) => {
            tracing::info!("no sound device ({why}): the table plays silently");
            while rx.recv().is_ok() {}
            return;
        }
    };
    let mut cache: Vec<(Cue, Vec<f32>)> = Vec::new();
    while let Ok((cue, volume)) = rx.recv() {
        let samples = match cache.iter().find(|(c, _)| *c == cue) {
            Some((_, s)) => s,
            None => {
                cache.push((cue, synth(cue, rate)));
                &cache[cache.len() - 1].1
            }
        };
        if let Ok(mut q) = queue.lock() {
            // Mixed over what is still playing, so that a call does not wait for a discard.
            for (i, s) in samples.iter().enumerate() {
                let v = s * volume;
                match q.get_mut(i) {
                    Some(x) => *x = (*x + v).clamp(-1.0, 1.0),
                    None => q.push_back(v),
                }
            }
        }
    }
    drop(stream);
}

fn open(queue: Arc<Mutex<VecDeque<f32>>>) -> Result<(cpal::Stream, u32), String> {
    let device = cpal::default_host()
        .default_output_device()
        .ok_or("no output device")?;
    let supported = device.default_output_config().map_err(|e| e.to_string())?;
    let rate = supported.sample_rate().0;
    let format = supported.sample_format();
    let config: cpal::StreamConfig = supported.into();
    let channels = usize::from(config.channels.max(1));
    let err = |e: cpal::StreamError| tracing::warn!("sound: {e}");
    let stream = match format {
        cpal::SampleFormat::F32 => device.build_output_stream(
            &config,
            move |data: &mut [f32], _: &cpal::OutputCallbackInfo| {
                fill(&queue, data, channels, |s| s)
            },
            err,
            None,
        ),
        cpal::SampleFormat::I16 => device.build_output_stream(
            &config,
            move |data: &mut [i16], _: &cpal::OutputCallbackInfo| {
                fill(&queue, data, channels, |s| (s * f32::from(i16::MAX)) as i16)
            },
            err,
            None,
        ),
        cpal::SampleFormat::U16 => device.build_output_stream(
            &config,
            move |data: &mut [u16], _: &cpal::OutputCallbackInfo| {
                fill(&queue, data, channels, |s| ((s + 1.0) * 32767.5) as u16)
            },
            err,
            None,
        ),
        other => return Err(format!("sample format {other:?} not supported")),
    }
    .map_err(|e| e.to_string())?;
    stream.play().map_err(|e| e.to_string())?;
    Ok((stream, rate))
}

fn fill<T: Copy>(
    queue: &Mutex<VecDeque<f32>>,
    data: &mut [T],
    channels: usize,
    convert: impl Fn(f32) -> T,
) {
    let mut q = queue.lock().ok();
    for frame in data.chunks_mut(channels) {
        let s = q.as_mut().and_then(|q| q.pop_front()).unwrap_or(0.0);
        let v = convert(s);
        for x in frame {
            *x = v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cue_is_short_audible_and_never_clips() {
        for cue in [
            Cue::Discard,
            Cue::Call,
            Cue::YourTurn,
            Cue::Win,
            Cue::LastSeconds,
        ] {
            let s = synth(cue, 48_000);
            let secs = s.len() as f32 / 48_000.0;
            assert!(secs > 0.03 && secs < 0.8, "{cue:?}: {secs} s");
            let peak = s.iter().fold(0.0f32, |m, x| m.max(x.abs()));
            assert!(peak > 0.1 && peak <= 1.0, "{cue:?}: peak {peak}");
        }
    }

    #[test]
    fn volume_zero_plays_nothing_and_the_played_cues_are_kept() {
        let mut s = Sound::silent();
        s.play(Cue::Discard, 0);
        assert!(s.played().is_empty());
        s.play(Cue::Win, 70);
        assert_eq!(s.played(), &[Cue::Win]);
    }
}
