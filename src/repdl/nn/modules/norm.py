"""BatchNorm1d/2d, LayerNorm, GroupNorm, RMSNorm, InstanceNorm1d/2d.

The batch norms keep torch's bookkeeping (num_batches_tracked, momentum=None
for the cumulative average with factor 1 / num_batches_tracked in Python
float, track_running_stats, affine); the arithmetic is RepDL's."""
from torch import nn

from .. import functional as F


class _BatchNorm:
    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)  # an int64 buffer: exact
            factor = 1.0 / float(self.num_batches_tracked) if self.momentum is None else self.momentum
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        keep_stats = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if keep_stats else None, self.running_var if keep_stats else None,
                            self.weight, self.bias, use_batch, factor, self.eps)


class BatchNorm1d(_BatchNorm, nn.BatchNorm1d):
    """torch.nn.BatchNorm1d with RepDL's batch_norm."""


class BatchNorm2d(_BatchNorm, nn.BatchNorm2d):
    """torch.nn.BatchNorm2d with RepDL's batch_norm."""


class LayerNorm(nn.LayerNorm):
    """torch.nn.LayerNorm with RepDL's layer_norm."""

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)


class GroupNorm(nn.GroupNorm):
    """torch.nn.GroupNorm with RepDL's group_norm."""

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)


class RMSNorm(nn.RMSNorm):
    """torch.nn.RMSNorm with RepDL's rms_norm."""

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)


class _InstanceNorm:
    def forward(self, input):
        self._check_input_dim(input)
        unbatched = input.dim() == self._get_no_batch_dim()
        x = input.unsqueeze(0) if unbatched else input
        y = F.instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                            self.training or not self.track_running_stats, self.momentum if self.momentum is not None
                            else 0.0, self.eps)
        return y.squeeze(0) if unbatched else y


class InstanceNorm1d(_InstanceNorm, nn.InstanceNorm1d):
    """torch.nn.InstanceNorm1d with RepDL's instance_norm."""


class InstanceNorm2d(_InstanceNorm, nn.InstanceNorm2d):
    """torch.nn.InstanceNorm2d with RepDL's instance_norm."""
