"""Losses: torch.nn's classes (every reduction) over RepDL's losses."""
from torch import nn

from .. import functional as F


class CrossEntropyLoss(nn.CrossEntropyLoss):
    def forward(self, input, target):
        return F.cross_entropy(input, target, self.weight, self.ignore_index, self.reduction, self.label_smoothing)


class NLLLoss(nn.NLLLoss):
    def forward(self, input, target):
        return F.nll_loss(input, target, self.weight, self.ignore_index, self.reduction)


class MSELoss(nn.MSELoss):
    def forward(self, input, target):
        return F.mse_loss(input, target, self.reduction)


class L1Loss(nn.L1Loss):
    def forward(self, input, target):
        return F.l1_loss(input, target, self.reduction)


class SmoothL1Loss(nn.SmoothL1Loss):
    def forward(self, input, target):
        return F.smooth_l1_loss(input, target, self.reduction, self.beta)


class HuberLoss(nn.HuberLoss):
    def forward(self, input, target):
        return F.huber_loss(input, target, self.reduction, self.delta)


class BCELoss(nn.BCELoss):
    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, self.weight, self.reduction)


class BCEWithLogitsLoss(nn.BCEWithLogitsLoss):
    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight, self.reduction, self.pos_weight)


class KLDivLoss(nn.KLDivLoss):
    def forward(self, input, target):
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class CosineEmbeddingLoss(nn.CosineEmbeddingLoss):
    def forward(self, input1, input2, target):
        return F.cosine_embedding_loss(input1, input2, target, self.margin, self.reduction)


class MarginRankingLoss(nn.MarginRankingLoss):
    def forward(self, input1, input2, target):
        return F.margin_ranking_loss(input1, input2, target, self.margin, self.reduction)
