"""repdl.nn's layers: torch.nn's classes (same constructor arguments,
parameters, buffers, state_dict keys and repr) whose forward runs RepDL's
ops and whose default initialisation draws from RepDL's stream."""
from .activation import (CELU, ELU, GELU, Hardsigmoid, Hardswish, Hardtanh, LeakyReLU, LogSigmoid,  # noqa: F401
                         LogSoftmax, Mish, PReLU, ReLU, ReLU6, SELU, Sigmoid, SiLU, Softmax, Softplus, Tanh)
from .attention import MultiheadAttention  # noqa: F401
from .conv import Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d  # noqa: F401
from .dropout import Dropout, Dropout1d, Dropout2d, Dropout3d  # noqa: F401
from .linear import Bilinear, Linear  # noqa: F401
from .loss import (BCELoss, BCEWithLogitsLoss, CosineEmbeddingLoss, CrossEntropyLoss, HuberLoss,  # noqa: F401
                   KLDivLoss, L1Loss, MarginRankingLoss, MSELoss, NLLLoss, SmoothL1Loss)
from .norm import (BatchNorm1d, BatchNorm2d, GroupNorm, InstanceNorm1d, InstanceNorm2d, LayerNorm,  # noqa: F401
                   RMSNorm)
from .pool import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool1d, AdaptiveMaxPool2d,  # noqa: F401
                   AvgPool1d, AvgPool2d, MaxPool1d, MaxPool2d)
from .sparse import Embedding  # noqa: F401

__all__ = ["AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AvgPool1d", "AvgPool2d", "BCELoss", "BCEWithLogitsLoss", "BatchNorm1d", "BatchNorm2d", "Bilinear", "CELU", "Conv1d", "Conv2d", "ConvTranspose1d", "ConvTranspose2d", "CosineEmbeddingLoss", "CrossEntropyLoss", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "ELU", "Embedding", "GELU", "GroupNorm", "Hardsigmoid", "Hardswish", "Hardtanh", "HuberLoss", "InstanceNorm1d", "InstanceNorm2d", "KLDivLoss", "L1Loss", "LayerNorm", "LeakyReLU", "Linear", "LogSigmoid", "LogSoftmax", "MSELoss", "MarginRankingLoss", "MaxPool1d", "MaxPool2d", "Mish", "MultiheadAttention", "NLLLoss", "PReLU", "RMSNorm", "ReLU", "ReLU6", "SELU", "SiLU", "Sigmoid", "SmoothL1Loss", "Softmax", "Softplus", "Tanh"]
