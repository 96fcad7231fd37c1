; flow control, labels, an inserted line, an indexed input, a comment
0: ADDRC RC.x, f[COL0].xxxx, -{0.5, 0.0, 0.0, 0.0}.xxxx;
2: IFE (GT.xxxx) else @4 end @5;
3: MOVH_SAT_x2_PC H0, h(|f[TEX1].xyxy|);
   MULR R0, R0, f[TEX(A0+2)];   # added
4: TEXR R1, f[TEX0], TEX3.bx2;
5: LOOP count=4 init=0 incr=1 end @6;
6: MOVR R0.xy, R1; END
