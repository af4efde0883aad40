"""The loss curve as a PNG, without a plotting library: the curve is drawn
into a numpy array of pixels, and the PNG written with zlib and struct."""
import struct
import zlib

import numpy as np

WHITE, GRID, AXIS, TEXT = (255, 255, 255), (228, 228, 228), (120, 120, 120), (60, 60, 60)
STEP_COLOUR, MEASURED_COLOUR, VAL_COLOUR = (170, 200, 235), (31, 90, 170), (214, 96, 20)

# A 3 x 5 pixel font for the axes' numbers: one string of 15 bits per character, row by row.
FONT = {
    "0": "111101101101111", "1": "010110010010111", "2": "111001111100111", "3": "111001111001111",
    "4": "101101111001001", "5": "111100111001111", "6": "111100111101111", "7": "111001001001001",
    "8": "111101111101111", "9": "111101111001111", ".": "000000000000010", " ": "000000000000000",
    "l": "110010010010111", "o": "000000111101111", "s": "000011010001110", "t": "010111010010011",
    "e": "000111101110011", "p": "000111101111100", "r": "000111100100100", "a": "000011101101111",
    "i": "010000010010010", "n": "000110101101101", "v": "000101101101010",
}  # fmt: skip


def write_png(path: str, pixels: np.ndarray) -> None:
    """Write an (H, W, 3) uint8 array as an 8-bit RGB PNG."""
    pixels = np.ascontiguousarray(pixels, dtype=np.uint8)
    height, width, _ = pixels.shape
    rows = np.concatenate([np.zeros((height, 1), np.uint8), pixels.reshape(height, width * 3)], axis=1)  # filter 0 per row

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8 bits, RGB, deflate, no interlace
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows.tobytes(), 9)) + chunk(b"IEND", b""))


def _text(img: np.ndarray, x: int, y: int, text: str, scale: int = 2, align: str = "left") -> None:
    width = (4 * len(text) - 1) * scale
    if align == "right":
        x -= width
    elif align == "center":
        x -= width // 2
    for k, ch in enumerate(text):
        bits = np.array([int(b) for b in FONT[ch]], dtype=bool).reshape(5, 3)
        glyph = np.kron(bits, np.ones((scale, scale), dtype=bool))
        x0 = x + 4 * k * scale
        region = img[y : y + 5 * scale, x0 : x0 + 3 * scale]
        region[glyph[: region.shape[0], : region.shape[1]]] = TEXT


def _line(img: np.ndarray, points: np.ndarray, colour, thickness: int = 1) -> None:
    """A polyline through (x, y) pixel points, drawn as dots along each segment."""
    h, w, _ = img.shape
    r = thickness // 2
    for (x0, y0), (x1, y1) in zip(points[:-1], points[1:]):
        n = int(max(abs(x1 - x0), abs(y1 - y0))) + 1
        xs = np.rint(np.linspace(x0, x1, n)).astype(int)
        ys = np.rint(np.linspace(y0, y1, n)).astype(int)
        for dx in range(-r, r + 1):
            for dy in range(-r, r + 1):
                ok = (xs + dx >= 0) & (xs + dx < w) & (ys + dy >= 0) & (ys + dy < h)
                img[ys[ok] + dy, xs[ok] + dx] = colour


def loss_curve(step_losses, eval_steps, eval_losses, val_losses=(), width: int = 640, height: int = 360) -> np.ndarray:
    """The loss of every training step (light), the loss measured on the training
    text (dark blue, "train") and on the held-out text (orange, "val"), against
    the step; the y axis from 0, a grid line at every whole loss."""
    img = np.full((height, width, 3), WHITE, dtype=np.uint8)
    left, right, top, bottom = 44, width - 24, 24, height - 46
    steps = max(len(step_losses), max(eval_steps, default=0), 1)
    top_loss = max(1, int(np.ceil(max(list(step_losses) + list(eval_losses) + list(val_losses)))))

    def px(step, loss):
        x = left + (right - left) * np.asarray(step, float) / steps
        y = bottom - (bottom - top) * np.clip(np.asarray(loss, float), 0, top_loss) / top_loss
        return np.stack([x, y], axis=-1)

    every = max(1, top_loss // 8)
    for loss in range(0, top_loss + 1, every):
        y = int(round(px(0, loss)[1]))
        img[y, left:right] = GRID
        _text(img, left - 8, y - 5, str(loss), align="right")
    for k in range(5):
        step = round(steps * k / 4)
        x = int(round(px(step, 0)[0]))
        img[top:bottom, x] = GRID
        _text(img, x, bottom + 8, str(step), align="center")
    _text(img, left - 8, top - 18, "loss")
    _text(img, (left + right) // 2, bottom + 26, "step", align="center")
    img[top:bottom + 1, left] = AXIS
    img[bottom, left:right] = AXIS
    if len(step_losses) > 1:
        _line(img, px(np.arange(1, len(step_losses) + 1), step_losses), STEP_COLOUR)
    if len(eval_losses) > 1:
        _line(img, px(eval_steps, eval_losses), MEASURED_COLOUR, thickness=3)
    if len(val_losses) > 1:
        _line(img, px(eval_steps, val_losses), VAL_COLOUR, thickness=3)
    if len(val_losses):  # the legend, under the axis on the right, where no curve goes
        x, y = right - 150, bottom + 31
        for name, colour in (("train", MEASURED_COLOUR), ("val", VAL_COLOUR)):
            img[y - 1 : y + 2, x : x + 24] = colour
            _text(img, x + 30, y - 5, name)
            x += 30 + 8 * len(name) + 20
    return img
