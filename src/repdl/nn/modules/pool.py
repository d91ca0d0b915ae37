"""MaxPool1d/2d, AvgPool1d/2d, AdaptiveAvgPool1d/2d, AdaptiveMaxPool1d/2d."""
from torch import nn

from .. import functional as F


class MaxPool1d(nn.MaxPool1d):
    """torch.nn.MaxPool1d with RepDL's max_pool1d."""

    def forward(self, input):
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode,
                            self.return_indices)


class MaxPool2d(nn.MaxPool2d):
    """torch.nn.MaxPool2d with RepDL's max_pool2d."""

    def forward(self, input):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode,
                            self.return_indices)


class AvgPool1d(nn.AvgPool1d):
    """torch.nn.AvgPool1d with RepDL's avg_pool1d."""

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad)


class AvgPool2d(nn.AvgPool2d):
    """torch.nn.AvgPool2d with RepDL's avg_pool2d."""

    def forward(self, input):
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad,
                            self.divisor_override)


class AdaptiveAvgPool1d(nn.AdaptiveAvgPool1d):
    """torch.nn.AdaptiveAvgPool1d with RepDL's adaptive_avg_pool1d."""

    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(nn.AdaptiveAvgPool2d):
    """torch.nn.AdaptiveAvgPool2d with RepDL's adaptive_avg_pool2d."""

    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveMaxPool1d(nn.AdaptiveMaxPool1d):
    """torch.nn.AdaptiveMaxPool1d with RepDL's adaptive_max_pool1d."""

    def forward(self, input):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(nn.AdaptiveMaxPool2d):
    """torch.nn.AdaptiveMaxPool2d with RepDL's adaptive_max_pool2d."""

    def forward(self, input):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)
