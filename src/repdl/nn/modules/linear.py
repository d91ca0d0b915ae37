"""Linear and Bilinear."""
from torch import nn

from ...random import init
from .. import functional as F


class Linear(nn.Linear):
    """torch.nn.Linear: y = x W^T + b with RepDL's linear; default
    initialisation from RepDL's stream (kaiming_uniform_(a=sqrt(5)))."""

    def reset_parameters(self):
        init.init_module_(self)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)


class Bilinear(nn.Bilinear):
    """torch.nn.Bilinear with RepDL's bilinear."""

    def reset_parameters(self):
        init.init_module_(self)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)
