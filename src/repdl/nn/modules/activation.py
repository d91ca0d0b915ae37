"""Activations: torch.nn's classes over RepDL's correctly rounded and
piecewise-linear functions."""
from torch import nn

from .. import functional as F


class ReLU(nn.ReLU):
    def forward(self, input):
        return F.relu(input, self.inplace)


class ReLU6(nn.ReLU6):
    def forward(self, input):
        return F.relu6(input, self.inplace)


class Hardtanh(nn.Hardtanh):
    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)


class LeakyReLU(nn.LeakyReLU):
    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)


class PReLU(nn.PReLU):
    def forward(self, input):
        return F.prelu(input, self.weight)


class GELU(nn.GELU):
    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)


class SiLU(nn.SiLU):
    def forward(self, input):
        return F.silu(input, self.inplace)


class Tanh(nn.Tanh):
    def forward(self, input):
        return F.tanh(input)


class Sigmoid(nn.Sigmoid):
    def forward(self, input):
        return F.sigmoid(input)


class LogSigmoid(nn.LogSigmoid):
    def forward(self, input):
        return F.logsigmoid(input)


class Softplus(nn.Softplus):
    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)


class Mish(nn.Mish):
    def forward(self, input):
        return F.mish(input, self.inplace)


class Hardswish(nn.Hardswish):
    def forward(self, input):
        return F.hardswish(input, self.inplace)


class Hardsigmoid(nn.Hardsigmoid):
    def forward(self, input):
        return F.hardsigmoid(input, self.inplace)


class ELU(nn.ELU):
    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)


class SELU(nn.SELU):
    def forward(self, input):
        return F.selu(input, self.inplace)


class CELU(nn.CELU):
    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)


class Softmax(nn.Softmax):
    def forward(self, input):
        return F.softmax(input, self.dim)


class LogSoftmax(nn.LogSoftmax):
    def forward(self, input):
        return F.log_softmax(input, self.dim)
