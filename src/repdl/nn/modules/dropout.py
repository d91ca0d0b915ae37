"""Dropout, Dropout1d/2d/3d: masks from RepDL's stream (the default
generator), so a seeded run draws the same masks everywhere."""
from torch import nn

from .. import functional as F


class Dropout(nn.Dropout):
    """torch.nn.Dropout with RepDL's dropout."""

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout1d(nn.Dropout1d):
    """torch.nn.Dropout1d with RepDL's channel dropout."""

    def forward(self, input):
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(nn.Dropout2d):
    """torch.nn.Dropout2d with RepDL's channel dropout."""

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(nn.Dropout3d):
    """torch.nn.Dropout3d with RepDL's channel dropout."""

    def forward(self, input):
        return F.dropout3d(input, self.p, self.training, self.inplace)
