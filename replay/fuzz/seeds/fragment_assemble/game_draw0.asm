; draw 0: fragment program at local+0x01066580 (hash 2ff1e60e20345c2d, shader control 0x07000040)
   0: TEXR R0, f[TEX0], TEX0;
   1: FLRR R6.xy, f[TEX0].xyxy;
   2: MADR R0.xy, R6.xyxy, {0.125, 0.0, 0.0, 0.0}.xxxx, R0;
   4: ADDRC RC.x, f[COL0].xxxx, -{0.640625, 0.0, 0.0, 0.0}.xxxx;
   6: IFE (GT.xxxx) else @9 end @11;
   7: MULR R0.xyz, R0, {1.1132813, 0.9328126, 0.90234375, 1.1789063};
   9: ADDR R0.xyz, R0, {0.19375001, 0.09531249, -0.1828125, -0.057812497};
  11: MOVR R0, R0; END
