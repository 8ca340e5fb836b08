package sweep_test

import "log/slog"

const levelDebug = slog.LevelDebug
