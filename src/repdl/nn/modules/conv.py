"""Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d (every padding_mode of
torch: zeros, reflect, replicate, circular)."""
import inspect
import types

from torch import nn

from ...ops import conv as _conv
from ...random import init
from .. import functional as F


class _ConvInit:
    _padding_modes = ("zeros", "reflect", "replicate", "circular")

    @classmethod
    def _unsupported(cls, config):
        """Why a layer configured as `config` (a module or its constructor
        arguments) cannot run here, or None.  torch says ValueError for an
        unknown mode; RepDL's rule for an unsupported argument is
        NotImplementedError naming what is supported."""
        mode = getattr(config, "padding_mode", "zeros")
        if mode not in cls._padding_modes:
            return f"padding_mode={mode!r} is not supported; supported: {', '.join(cls._padding_modes)}"
        return None

    def __init__(self, *args, **kwargs):
        config = inspect.signature(super().__init__).bind(*args, **kwargs)
        reason = self._unsupported(types.SimpleNamespace(**config.arguments))
        if reason:
            raise NotImplementedError(f"repdl.nn.{type(self).__name__}: {reason}")
        super().__init__(*args, **kwargs)

    def reset_parameters(self):
        init.init_module_(self)


class Conv1d(_ConvInit, nn.Conv1d):
    """torch.nn.Conv1d with RepDL's convolution."""

    def forward(self, input):
        return _conv._conv("conv1d", 1, input, self.weight, self.bias, self.stride, self.padding, self.dilation,
                           self.groups, self.padding_mode)


class Conv2d(_ConvInit, nn.Conv2d):
    """torch.nn.Conv2d with RepDL's convolution."""

    def forward(self, input):
        return _conv._conv("conv2d", 2, input, self.weight, self.bias, self.stride, self.padding, self.dilation,
                           self.groups, self.padding_mode)


class ConvTranspose1d(_ConvInit, nn.ConvTranspose1d):
    """torch.nn.ConvTranspose1d with RepDL's transposed convolution."""

    _padding_modes = ("zeros",)

    def forward(self, input, output_size=None):
        output_padding = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size, 1,
                                              self.dilation)
        return F.conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding, output_padding,
                                  self.groups, self.dilation)


class ConvTranspose2d(_ConvInit, nn.ConvTranspose2d):
    """torch.nn.ConvTranspose2d with RepDL's transposed convolution."""

    _padding_modes = ("zeros",)

    def forward(self, input, output_size=None):
        output_padding = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size, 2,
                                              self.dilation)
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding, output_padding,
                                  self.groups, self.dilation)
